package sqlstore_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"tandem/adapters/sqlstore"
	"tandem/adapters/sqlstore/sqltest"
)

// TestSnapshotAndRestore: VACUUM INTO makes a self-contained copy (no -wal
// beside it) that InspectSnapshot counts; the online backup API puts it into
// another, migrated but empty, database in WAL mode.
func TestSnapshotAndRestore(t *testing.T) {
	ctx := context.Background()
	src := sqltest.Open(t, sqlstore.SQLite)
	for _, p := range []string{"ios", "android"} {
		if _, err := src.ExecContext(ctx, `INSERT INTO version_policies (platform, min_required,
			recommended, latest, download_url, update_message, release_notes, updated_at)
			VALUES (?, '1.0.0', '1.0.0', '1.0.0', 'https://x', 'm', '', 0)`, p); err != nil {
			t.Fatal(err)
		}
	}
	if table, err := src.FirstRow(ctx); err != nil || table != "version_policies" {
		t.Fatalf("first row: %q %v", table, err)
	}

	dir := t.TempDir()
	snap := filepath.Join(dir, "snap?#.sqlite") // a name a plain "file:" DSN would cut short
	if err := src.Snapshot(ctx, snap); err != nil {
		t.Fatal(err)
	}
	info, err := sqlstore.InspectSnapshot(ctx, snap)
	if err != nil {
		t.Fatal(err)
	}
	latest, err := sqlstore.LatestVersion(sqlstore.SQLite)
	if err != nil || latest < 23 {
		t.Fatalf("latest %d %v", latest, err)
	}
	if info.SchemaVersion != latest || info.Tables["version_policies"] != 2 || info.Tables["accounts"] != 0 || len(info.ImageKeys) != 0 {
		t.Fatalf("info %+v", info)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("files beside the snapshot: %v", entries)
	}

	dst := sqltest.Open(t, sqlstore.SQLite)
	if table, err := dst.FirstRow(ctx); err != nil || table != "" {
		t.Fatalf("a migrated database has rows: %q %v", table, err)
	}
	if err := dst.Restore(ctx, snap); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := dst.GetContext(ctx, &n, "SELECT COUNT(*) FROM version_policies"); err != nil || n != 2 {
		t.Fatalf("restored %d %v", n, err)
	}
	if v, err := sqlstore.SchemaVersion(ctx, dst); err != nil || v != latest {
		t.Fatalf("version %d %v", v, err)
	}
	if err := sqlstore.Migrate(ctx, dst, nil); err != nil {
		t.Fatal(err)
	}
}
