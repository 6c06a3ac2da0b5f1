// Package sqltest gives tests a fresh, migrated database per test: a SQLite
// file in t.TempDir, and a scratch MySQL database when TANDEM_TEST_MYSQL_DSN
// is set (under CI it must be set and reachable).
package sqltest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"os"
	"path/filepath"
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

// Config returns the configuration of a new empty database of the dialect,
// dropped when the test ends.
func Config(t testing.TB, d sqlstore.Dialect) sqlstore.Config {
	t.Helper()
	if d == sqlstore.SQLite {
		// Not t.TempDir: a subtest name may hold '#', which a SQLite path refuses.
		dir, err := os.MkdirTemp("", "tandem-sqlite-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.RemoveAll(dir) })
		return sqlstore.Config{Dialect: d, DSN: filepath.Join(dir, "tandem.db")}
	}
	return sqlstore.Config{Dialect: d, DSN: scratchMySQL(t)}
}

// Open returns a fresh migrated database of the dialect.
func Open(t testing.TB, d sqlstore.Dialect) *sqlstore.DB {
	t.Helper()
	db, err := sqlstore.Open(context.Background(), Config(t, d))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := sqlstore.Migrate(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	return db
}

func scratchMySQL(t testing.TB) string {
	t.Helper()
	base := os.Getenv(EnvMySQL)
	cfg, err := mysql.ParseDSN(base)
	if err != nil {
		t.Fatalf("%s: %v", EnvMySQL, err)
	}
	cfg.DBName = ""
	admin, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "tandem_t_" + hex.EncodeToString(b[:])
	if _, err := admin.Exec("CREATE DATABASE " + name + " CHARACTER SET utf8mb4"); err != nil {
		t.Fatalf("mysql unreachable (%s): %v", EnvMySQL, err)
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
