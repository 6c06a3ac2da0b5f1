// Package sqlstore implements the repository ports on MySQL and SQLite with
// sqlx (execution) and squirrel (query building), always with placeholders.
package sqlstore

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/XSAM/otelsql"
	"github.com/go-sql-driver/mysql"
	"github.com/jmoiron/sqlx"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"
	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"tandem/core"
	"tandem/modules/changes"
)

// Dialect is the SQL flavour of the database.
type Dialect string

const (
	MySQL  Dialect = "mysql"
	SQLite Dialect = "sqlite"
)

// Config names the database: for SQLite the DSN is a file path.
type Config struct {
	Dialect Dialect
	DSN     string
	// Tracing, when set, makes every statement a span of the caller's
	// trace (otelsql wraps the driver); nil installs nothing.
	Tracing trace.TracerProvider
	// Pool is how many connections to keep, open and idle alike;
	// 0 is the dialect's default (DefaultSQLitePool, DefaultMySQLPool).
	Pool int
}

// The pools' default sizes (TANDEM_DB_POOL changes them): SQLite's 8
// readers beside its one writer; MySQL's 16, which measured best with
// MariaDB on the same two cores (BENCHMARKS.md, change 14). With MySQL on
// cores of its own, a larger pool may serve more.
const (
	DefaultSQLitePool = 8
	DefaultMySQLPool  = 16
)

// DB is the shared handle every repository uses.
type DB struct {
	*sqlx.DB
	Dialect Dialect
	path    string // SQLite: the database file
	sb      sq.StatementBuilderType
	observe func(query string, args []any) // tests: sees every statement before it runs
	// statements counts the statements run through the repositories (not
	// BEGIN and COMMIT): the benchmarks report it per request.
	statements atomic.Uint64
	stmts      *stmtCache    // nil: every query is parsed where it runs
	writes     chan struct{} // SQLite: the turn to write (one writer at a time); nil on MySQL
	group      groupCommit   // SQLite: the transactions waiting for the turn
	full       fullMark      // the last write refused for want of space (readiness)
	purge      purgeSizes    // tests: smaller purge batches
	changes    changes.Recording
	changeSQL  queryMemo // the INSERTs of a write's changes and heads, by row count; its partnerships' read
}

// Close releases the prepared statements, then the connections.
func (d *DB) Close() error {
	if d.stmts != nil {
		d.stmts.close()
	}
	return d.DB.Close()
}

// Statements is how many statements the repositories have run so far.
func (d *DB) Statements() uint64 { return d.statements.Load() }

// Open connects and checks the connection; it does not migrate.
func Open(ctx context.Context, cfg Config) (*DB, error) {
	var (
		db  *sqlx.DB
		err error
	)
	switch cfg.Dialect {
	case MySQL:
		db, err = openMySQL(cfg.DSN, cmp.Or(cfg.Pool, DefaultMySQLPool), cfg.Tracing)
	case SQLite:
		db, err = openSQLite(cfg.DSN, cmp.Or(cfg.Pool, DefaultSQLitePool), cfg.Tracing)
	default:
		return nil, fmt.Errorf("sqlstore: unknown dialect %q", cfg.Dialect)
	}
	if err != nil {
		return nil, err
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.PingContext(pctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlstore: connect to %s: %w", cfg.Dialect, err)
	}
	d := &DB{DB: db, Dialect: cfg.Dialect, sb: sq.StatementBuilder.PlaceholderFormat(sq.Question)}
	if cfg.Dialect == SQLite {
		d.stmts = &stmtCache{stmts: map[string]*sqlx.Stmt{}}
		d.writes = make(chan struct{}, 1)
		d.path = cfg.DSN
	}
	return d, nil
}

// MySQLDSN applies the options every connection needs: parsed times, client-side
// interpolation (one round trip per query), utf8mb4, UTC and network timeouts.
func MySQLDSN(dsn string) (string, error) {
	c, err := mysql.ParseDSN(dsn)
	if err != nil {
		return "", err
	}
	c.ParseTime = true
	c.InterpolateParams = true
	c.ClientFoundRows = true // RowsAffected counts matched rows, as on SQLite
	c.Loc = time.UTC
	if c.Params == nil {
		c.Params = map[string]string{}
	}
	c.Params["charset"] = "utf8mb4"
	if c.Timeout == 0 {
		c.Timeout = 5 * time.Second
	}
	if c.ReadTimeout == 0 {
		c.ReadTimeout = 30 * time.Second
	}
	if c.WriteTimeout == 0 {
		c.WriteTimeout = 30 * time.Second
	}
	return c.FormatDSN(), nil
}

func openMySQL(dsn string, pool int, tp trace.TracerProvider) (*sqlx.DB, error) {
	full, err := MySQLDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: mysql DSN: %w", err)
	}
	db, err := open("mysql", full, tp)
	if err != nil {
		return nil, err
	}
	// 16 connections: at 32 (one per wrk connection) the extra concurrency
	// only queued inside MariaDB, and a list's p99 was 28-31 ms against
	// 16-19 ms at 16, at the same throughput (8 lost some). As many idle as
	// open: with fewer, a burst closes the connections it opened above the
	// idle count on return and dials them again on the next burst (a TCP and
	// auth handshake in the tail).
	db.SetMaxOpenConns(pool)
	db.SetMaxIdleConns(pool)
	db.SetConnMaxLifetime(3 * time.Minute) // under the usual 5-minute proxy/LB idle cut
	db.SetConnMaxIdleTime(time.Minute)
	return db, nil
}

// openSQLite uses WAL (readers never block the writer), a busy timeout (writers
// queue instead of failing) and IMMEDIATE transactions (a transaction takes the
// write lock at BEGIN, so two read-then-write transactions cannot deadlock).
func openSQLite(path string, pool int, tp trace.TracerProvider) (*sqlx.DB, error) {
	// The path becomes a URI: '?' would start its parameters and '#' end it,
	// silently opening another file.
	if strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("sqlstore: sqlite path %q must not contain ? or #", path)
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return nil, fmt.Errorf("sqlstore: sqlite dir: %w", err)
		}
	}
	if err := restrictSQLiteFiles(path); err != nil {
		return nil, err
	}
	dsn := "file:" + path + "?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)" +
		"&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_txlock=immediate"
	db, err := open("sqlite", dsn, tp)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(pool)
	db.SetMaxIdleConns(pool)
	return db, nil
}

// open opens the pool, through otelsql when tp is set: each statement, and
// each transaction's begin and end, is then a client span named by its
// method ("sql.conn.query"...), holding the statement with its placeholders,
// never the values. Rows and connection resets make no span of their own.
func open(driver, dsn string, tp trace.TracerProvider) (*sqlx.DB, error) {
	if tp == nil {
		return sqlx.Open(driver, dsn)
	}
	system := semconv.DBSystemNameSQLite
	if driver == "mysql" {
		system = semconv.DBSystemNameMySQL
	}
	db, err := otelsql.Open(driver, dsn, otelsql.WithTracerProvider(tp), otelsql.WithMeterProvider(metricnoop.NewMeterProvider()),
		otelsql.WithAttributes(system),
		otelsql.WithSpanOptions(otelsql.SpanOptions{OmitConnResetSession: true, OmitRows: true, OmitConnectorConnect: true,
			DisableErrSkip: true}))
	if err != nil {
		return nil, err
	}
	return sqlx.NewDb(db, driver), nil
}

// sqliteFileMode is the database's, whatever the umask: it holds password
// hashes and pending codes. SQLite gives the -wal and -shm files it creates
// the database file's mode (and fchmods them to it), so they follow.
const sqliteFileMode = 0o600

// restrictSQLiteFiles creates the database file 0600 before SQLite would
// create it 0644 (less the umask), and brings an existing database and its
// -wal and -shm, made by an older version, down to 0600.
func restrictSQLiteFiles(path string) error {
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, sqliteFileMode)
	if err != nil {
		return fmt.Errorf("sqlstore: sqlite: %w", err)
	}
	f.Close()
	for _, file := range []string{path, path + "-wal", path + "-shm"} {
		info, err := os.Stat(file)
		if os.IsNotExist(err) {
			continue
		}
		if err == nil && info.Mode().Perm() != sqliteFileMode {
			err = os.Chmod(file, sqliteFileMode)
		}
		if err != nil {
			return fmt.Errorf("sqlstore: sqlite: %w", err)
		}
	}
	return nil
}

// Ping reports whether the database answers (readiness).
func (d *DB) Ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := d.DB.PingContext(ctx); err != nil {
		return mapErr(err)
	}
	return nil
}

// fullHold is how long a write refused for want of space keeps the write
// path reported down, unless a write succeeds first. Without an end, an
// idle service freed of its full disk would be reported down for ever (no
// write comes to clear it); each new refusal starts it again.
const fullHold = 30 * time.Second

// fullMark remembers when a write last met a full disk (unix nanoseconds;
// 0: none since the last write that succeeded).
type fullMark struct {
	at   atomic.Int64
	hold time.Duration // 0: fullHold
}

// note records a write's outcome: a full disk marks, a success clears, any
// other error (a conflict, a missing row) says nothing about space.
func (m *fullMark) note(err error) {
	switch {
	case err == nil:
		if m.at.Load() != 0 {
			m.at.Store(0)
		}
	case core.IsKind(err, core.KindInsufficientStorage):
		m.at.Store(time.Now().UnixNano())
	}
}

func (m *fullMark) recent() bool {
	at, hold := m.at.Load(), m.hold
	if hold == 0 {
		hold = fullHold
	}
	return at != 0 && time.Since(time.Unix(0, at)) < hold
}

// WriteProblem reports the write path down while reads work: a write was
// refused for want of space within the last 30 s and none has succeeded
// since (readiness says "degraded"). Nil otherwise.
func (d *DB) WriteProblem() error {
	if d.full.recent() {
		return errDiskFull()
	}
	return nil
}

// upsert returns the dialect's "insert or update" suffix for a conflict on cols.
func (d *DB) upsert(conflictCols, set string) string {
	if d.Dialect == MySQL {
		return "ON DUPLICATE KEY UPDATE " + set
	}
	return "ON CONFLICT(" + conflictCols + ") DO UPDATE SET " + set
}
