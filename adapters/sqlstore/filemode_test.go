package sqlstore_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"tandem/adapters/sqlstore"
)

// TestSQLiteFilesAreOwnerOnly: the database, its -wal and its -shm hold
// password hashes and pending codes: 0600 even under umask 0 (SQLite alone
// makes them 0644 less the umask), its new directory 0750; a database an
// older version left 0644 is brought down to 0600 when opened.
func TestSQLiteFilesAreOwnerOnly(t *testing.T) {
	old := syscall.Umask(0) // process-wide: this test is not parallel
	t.Cleanup(func() { syscall.Umask(old) })
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "data")
	path := filepath.Join(dir, "tandem.db")
	open := func() *sqlstore.DB {
		t.Helper()
		db, err := sqlstore.Open(ctx, sqlstore.Config{Dialect: sqlstore.SQLite, DSN: path})
		if err != nil {
			t.Fatal(err)
		}
		if err := sqlstore.Migrate(ctx, db, nil); err != nil { // writes: the -wal and -shm exist
			t.Fatal(err)
		}
		return db
	}
	modes := func(want os.FileMode) {
		t.Helper()
		for _, f := range []string{path, path + "-wal", path + "-shm"} {
			info, err := os.Stat(f)
			if err != nil {
				t.Fatal(err)
			}
			if got := info.Mode().Perm(); got != want {
				t.Errorf("%s: %v, want %v", filepath.Base(f), got, want)
			}
		}
	}
	db := open()
	modes(0o600)
	if info, err := os.Stat(dir); err != nil || info.Mode().Perm() != 0o750 {
		t.Fatalf("directory: %v %v", info.Mode(), err)
	}
	defer db.Close()
	for _, f := range []string{path, path + "-wal", path + "-shm"} { // as before this change
		if err := os.Chmod(f, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// another process opens it while this one holds the -wal and -shm
	// (not empty: SQLite itself only fixes the mode of an empty one)
	again, err := sqlstore.Open(ctx, sqlstore.Config{Dialect: sqlstore.SQLite, DSN: path})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	modes(0o600)
}
