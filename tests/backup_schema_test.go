// This file holds the tests of schema versions across a restore: a
// snapshot of a newer schema refused, an older one migrated up.

package tests

import (
	"context"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"tandem/adapters/sqlstore"
	"tandem/migrations"
)

// latestSchema is the newest migration this binary has.
func latestSchema(t *testing.T) int64 {
	t.Helper()
	v, err := sqlstore.LatestVersion(sqlstore.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestRestoreRefusesASnapshotOfANewerSchema(t *testing.T) {
	parallel(t)
	ctx := context.Background()
	src := newDeployment(t)
	if out, err := command(src.env(), "migrate"); err != nil {
		t.Fatalf("migrate: %v %s", err, out)
	}
	// a newer Tandem migrated this database one step further
	db, err := sqlstore.Open(ctx, sqlstore.Config{Dialect: sqlstore.SQLite, DSN: src.db})
	if err != nil {
		t.Fatal(err)
	}
	newer := latestSchema(t) + 1
	if _, err := db.ExecContext(ctx, "INSERT INTO goose_db_version (version_id, is_applied) VALUES (?, 1)", newer); err != nil {
		t.Fatal(err)
	}
	db.Close()
	dir := filepath.Join(t.TempDir(), "backup")
	if out, err := command(src.env(), "backup", dir); err != nil || !strings.Contains(out, "schema version "+itoa(newer)) {
		t.Fatalf("backup: %v\n%s", err, out)
	}
	dst := newDeployment(t)
	out, err := command(dst.env(), "restore", dir)
	wantRefusal(t, out, err, "the backup's schema version "+itoa(newer)+" is newer than this binary's migrations ("+itoa(newer-1)+")")
	untouched(t, dst)
}

// previousSchema is the version of the migration before the latest one
// (versions may skip a number that another branch takes).
func previousSchema(t *testing.T) int64 {
	t.Helper()
	names, err := migrations.Names("sqlite")
	if err != nil || len(names) < 2 {
		t.Fatalf("migrations %v %v", names, err)
	}
	slices.Sort(names)
	v, err := strconv.ParseInt(strings.SplitN(path.Base(names[len(names)-2]), "_", 2)[0], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestRestoreMigratesAnOlderSnapshotUp(t *testing.T) {
	parallel(t)
	ctx := context.Background()
	latest, previous := latestSchema(t), previousSchema(t)
	src := newDeployment(t)
	db, err := sqlstore.Open(ctx, sqlstore.Config{Dialect: sqlstore.SQLite, DSN: src.db})
	if err != nil {
		t.Fatal(err)
	}
	if err := sqlstore.MigrateUpTo(ctx, db, previous); err != nil { // what the previous Tandem left
		t.Fatal(err)
	}
	db.Close()
	dir := filepath.Join(t.TempDir(), "backup")
	if out, err := command(src.env(), "backup", dir); err != nil {
		t.Fatalf("backup: %v\n%s", err, out)
	}
	dst := newDeployment(t)
	out, err := command(dst.env(), "restore", dir)
	if err != nil || !strings.Contains(out, "restored at schema version "+itoa(previous)+", migrated up to "+itoa(latest)) {
		t.Fatalf("restore: %v\n%s", err, out)
	}
	h := dst.serve(t) // the restored database serves
	h.newUser("ann@example.com")
	if v, err := sqlstore.SchemaVersion(ctx, h.DB); err != nil || v != latest {
		t.Fatalf("schema %d %v", v, err)
	}
}
