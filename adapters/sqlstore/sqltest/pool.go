package sqltest

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"tandem/adapters/sqlstore"
)

// mainRunning is set by Run: the pool is dropped only there, so a package
// without it would leave its databases on the server.
var mainRunning bool

// pool hands out migrated MySQL databases, each to one test at a time. A
// released database is emptied and given the template's rows again (the
// goose version table and what the migrations seed), in one transaction;
// one that cannot be is dropped instead of reused.
type pool struct {
	once  sync.Once
	err   error
	cfg   *mysql.Config
	admin *sql.DB
	tpl   string   // migrated once, never handed out: the rows a reset restores
	reset []string // the statements that bring a database back, %[1]s its name
	shape int      // the template's columns and index parts: a database that differs is dropped

	mu   sync.Mutex
	free []string
	all  []string
}

var mysqlDatabases pool

// take returns the DSN of a migrated database for t alone.
func (p *pool) take(t testing.TB) string {
	t.Helper()
	if !mainRunning {
		t.Fatal("sqltest: run the package's tests through sqltest.Run (func TestMain(m *testing.M) { os.Exit(sqltest.Run(m)) })")
	}
	cfg := adminDSN(t)
	p.once.Do(func() { p.err = p.start(cfg) })
	if p.err != nil {
		t.Fatalf("sqltest: mysql pool: %v", p.err)
	}
	name, err := p.get()
	if err != nil {
		t.Fatalf("sqltest: mysql pool: %v", err)
	}
	t.Cleanup(func() { p.put(name) })
	c := *p.cfg
	c.DBName = name
	return c.FormatDSN()
}

// start makes the template database and learns how to reset the others.
func (p *pool) start(cfg *mysql.Config) error {
	p.cfg = cfg
	admin, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return err
	}
	admin.SetMaxIdleConns(4)
	p.admin = admin
	if p.tpl, err = p.create(); err != nil {
		return err
	}
	if p.shape, err = p.shapeOf(p.tpl); err != nil {
		return err
	}
	p.reset, err = p.resetStatements()
	return err
}

// shapeOf counts name's columns and index parts. A migration test that
// leaves its database at another version (a Down that dropped columns but
// no table) still resets cleanly; the count tells it apart.
func (p *pool) shapeOf(name string) (int, error) {
	var n int
	err := p.admin.QueryRow(`SELECT (SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = ?) +
		(SELECT COUNT(*) FROM information_schema.statistics WHERE table_schema = ?)`, name, name).Scan(&n)
	return n, err
}

// create makes a new database and migrates it.
func (p *pool) create() (string, error) {
	name, err := createDatabase(p.admin, "tandem_t_")
	if err != nil {
		return "", err
	}
	c := *p.cfg
	c.DBName = name
	p.mu.Lock()
	p.all = append(p.all, name)
	p.mu.Unlock()
	return name, migrate(sqlstore.Config{Dialect: sqlstore.MySQL, DSN: c.FormatDSN()})
}

// resetStatements deletes every table's rows, then copies back the rows of
// each table the template holds rows in (its stored columns: a generated
// column cannot be inserted).
func (p *pool) resetStatements() ([]string, error) {
	rows, err := p.admin.Query(`SELECT table_name FROM information_schema.tables
		WHERE table_schema = ? AND table_type = 'BASE TABLE' ORDER BY table_name`, p.tpl)
	if err != nil {
		return nil, err
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return nil, err
		}
		tables = append(tables, name)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var deletes, inserts []string
	for _, table := range tables {
		deletes = append(deletes, fmt.Sprintf("DELETE FROM `%%[1]s`.`%s`", table))
		var n int
		if err := p.admin.QueryRow(fmt.Sprintf("SELECT COUNT(*) FROM `%s`.`%s`", p.tpl, table)).Scan(&n); err != nil {
			return nil, err
		}
		if n == 0 {
			continue
		}
		cols, err := p.storedColumns(table)
		if err != nil {
			return nil, err
		}
		inserts = append(inserts, fmt.Sprintf("INSERT INTO `%%[1]s`.`%s` (%s) SELECT %s FROM `%s`.`%s`",
			table, cols, cols, p.tpl, table))
	}
	return append(deletes, inserts...), nil
}

// storedColumns lists table's columns that are not generated, quoted.
func (p *pool) storedColumns(table string) (string, error) {
	rows, err := p.admin.Query(`SELECT column_name FROM information_schema.columns
		WHERE table_schema = ? AND table_name = ? AND extra NOT LIKE '%GENERATED%'
		ORDER BY ordinal_position`, p.tpl, table)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return "", err
		}
		cols = append(cols, "`"+c+"`")
	}
	return strings.Join(cols, ", "), rows.Err()
}

// get returns a free database, or migrates a new one.
func (p *pool) get() (string, error) {
	p.mu.Lock()
	if n := len(p.free); n > 0 {
		name := p.free[n-1]
		p.free = p.free[:n-1]
		p.mu.Unlock()
		return name, nil
	}
	p.mu.Unlock()
	return p.create()
}

// put empties name back to the migrated state and frees it, or drops it.
func (p *pool) put(name string) {
	if shape, err := p.shapeOf(name); err != nil || shape != p.shape {
		_, _ = p.admin.Exec("DROP DATABASE IF EXISTS " + name)
		return
	}
	if err := p.empty(name); err != nil {
		_, _ = p.admin.Exec("DROP DATABASE IF EXISTS " + name)
		return
	}
	p.mu.Lock()
	p.free = append(p.free, name)
	p.mu.Unlock()
}

func (p *pool) empty(name string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := p.admin.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	// A test that left a transaction open elsewhere makes this fail fast
	// (and the database is dropped) rather than wait out the default. The
	// admin connections only create and drop databases: no foreign key
	// check is missed by leaving them off.
	if _, err := conn.ExecContext(ctx, "SET SESSION innodb_lock_wait_timeout = 5, FOREIGN_KEY_CHECKS = 0"); err != nil {
		return err
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	for _, stmt := range p.reset {
		if _, err := tx.ExecContext(ctx, fmt.Sprintf(stmt, name)); err != nil {
			_ = tx.Rollback()
			return err
		}
	}
	return tx.Commit()
}

// drop removes every database the pool made (Main, after the tests).
func (p *pool) drop() {
	if p.admin == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, name := range p.all {
		_, _ = p.admin.Exec("DROP DATABASE IF EXISTS " + name)
	}
	p.admin.Close()
}
