// Package sqltest gives tests a migrated database of their own: a copy of a
// SQLite file migrated once per test binary, and on MySQL (when
// TANDEM_TEST_MYSQL_DSN is set; under CI it must be) a database from a pool
// of migrated ones, emptied back to the migrated state when its test ends.
// Migrating costs about a second under the race detector; copying a file or
// emptying some forty small tables costs milliseconds.
//
// A package that uses it runs its tests through Run, which removes the
// template and drops the pool when they are done:
//
//	func TestMain(m *testing.M) { os.Exit(sqltest.Run(m)) }
package sqltest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/go-sql-driver/mysql"

	"tandem/adapters/sqlstore"
)

// EnvMySQL names the DSN of a server where tests may create databases.
const EnvMySQL = "TANDEM_TEST_MYSQL_DSN"

// Dialects lists the SQL dialects to test on. Without a MySQL DSN it is SQLite
// only, except under CI (CI set), where a missing DSN fails the test.
func Dialects(t testing.TB) []sqlstore.Dialect {
	if os.Getenv(EnvMySQL) != "" {
		return []sqlstore.Dialect{sqlstore.SQLite, sqlstore.MySQL}
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s must be set under CI: the MySQL pass is required", EnvMySQL)
	}
	return []sqlstore.Dialect{sqlstore.SQLite}
}

// Run runs the tests of a package that uses sqltest, then removes what
// the package's databases left (the SQLite template, the MySQL pool), and
// returns m.Run's exit code.
func Run(m *testing.M) int {
	mainRunning = true
	code := m.Run()
	sqliteTemplate.remove()
	mysqlDatabases.drop()
	return code
}

// Config returns the configuration of a new empty database of the dialect,
// dropped when the test ends: for tests of the migrations themselves.
func Config(t testing.TB, d sqlstore.Dialect) sqlstore.Config {
	t.Helper()
	if d == sqlstore.SQLite {
		return sqlstore.Config{Dialect: d, DSN: sqlitePath(t)}
	}
	return sqlstore.Config{Dialect: d, DSN: scratchMySQL(t)}
}

// Migrated returns the configuration of a database of the dialect at the
// newest schema, holding only what the migrations put there, for this test
// alone.
func Migrated(t testing.TB, d sqlstore.Dialect) sqlstore.Config {
	t.Helper()
	if d == sqlstore.SQLite {
		return sqlstore.Config{Dialect: d, DSN: sqliteTemplate.copy(t)}
	}
	return sqlstore.Config{Dialect: d, DSN: mysqlDatabases.take(t)}
}

// Open returns an open, migrated database of the dialect for this test.
func Open(t testing.TB, d sqlstore.Dialect) *sqlstore.DB {
	t.Helper()
	db, err := sqlstore.Open(context.Background(), Migrated(t, d))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// OpenEmpty returns an open database of the dialect with no schema.
func OpenEmpty(t testing.TB, d sqlstore.Dialect) *sqlstore.DB {
	t.Helper()
	db, err := sqlstore.Open(context.Background(), Config(t, d))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// sqlitePath is a file path in a directory removed when the test ends.
func sqlitePath(t testing.TB) string {
	t.Helper()
	// Not t.TempDir: a subtest name may hold '#', which a SQLite path refuses.
	dir, err := os.MkdirTemp("", "tandem-sqlite-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return filepath.Join(dir, "tandem.db")
}

// migrate opens cfg, brings it to the newest schema and closes it.
func migrate(cfg sqlstore.Config) error {
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := sqlstore.Migrate(ctx, db, nil); err != nil {
		return err
	}
	if cfg.Dialect == sqlstore.SQLite {
		// Everything into the main file, so that copying it copies the database.
		_, err = db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
	}
	return err
}

// template is one SQLite file migrated once per test binary.
type template struct {
	once  sync.Once
	dir   string
	image []byte
	err   error
}

var sqliteTemplate template

func (tp *template) copy(t testing.TB) string {
	t.Helper()
	tp.once.Do(tp.build)
	if tp.err != nil {
		t.Fatalf("sqltest: sqlite template: %v", tp.err)
	}
	path := sqlitePath(t)
	if err := os.WriteFile(path, tp.image, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func (tp *template) build() {
	tp.dir, tp.err = os.MkdirTemp("", "tandem-sqlite-template-")
	if tp.err != nil {
		return
	}
	path := filepath.Join(tp.dir, "template.db")
	if tp.err = migrate(sqlstore.Config{Dialect: sqlstore.SQLite, DSN: path}); tp.err != nil {
		return
	}
	tp.image, tp.err = os.ReadFile(path)
}

func (tp *template) remove() {
	if tp.dir != "" {
		_ = os.RemoveAll(tp.dir)
	}
}

// adminDSN is the server of EnvMySQL, with no database selected.
func adminDSN(t testing.TB) *mysql.Config {
	t.Helper()
	cfg, err := mysql.ParseDSN(os.Getenv(EnvMySQL))
	if err != nil {
		t.Fatalf("%s: %v", EnvMySQL, err)
	}
	cfg.DBName = ""
	return cfg
}

// createDatabase makes a database with a random name and returns its name.
func createDatabase(admin *sql.DB, prefix string) (string, error) {
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := prefix + hex.EncodeToString(b[:])
	if _, err := admin.Exec("CREATE DATABASE " + name + " CHARACTER SET utf8mb4"); err != nil {
		return "", fmt.Errorf("mysql unreachable (%s): %w", EnvMySQL, err)
	}
	return name, nil
}

// scratchMySQL is a new empty database, dropped when the test ends.
func scratchMySQL(t testing.TB) string {
	t.Helper()
	cfg := adminDSN(t)
	admin, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	name, err := createDatabase(admin, "tandem_t_")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if db, err := sql.Open("mysql", cfg.FormatDSN()); err == nil {
			_, _ = db.Exec("DROP DATABASE IF EXISTS " + name)
			db.Close()
		}
	})
	cfg.DBName = name
	return cfg.FormatDSN()
}
