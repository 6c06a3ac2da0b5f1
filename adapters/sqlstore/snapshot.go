package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/jmoiron/sqlx"
	"modernc.org/sqlite"

	"tandem/migrations"
)

// versionTable is goose's bookkeeping table: it says the schema version and
// holds no user data, so an "empty" database may have rows in it.
const versionTable = "goose_db_version"

// Snapshot writes a consistent copy of this SQLite database to path with
// VACUUM INTO: one read transaction, so writers carry on (WAL) and the copy
// holds exactly what was committed before it began. path must not exist.
// The copy is then set to journal_mode DELETE, so that reading it later
// creates no -wal or -shm file beside it.
func (d *DB) Snapshot(ctx context.Context, path string) error {
	if d.Dialect != SQLite {
		return fmt.Errorf("sqlstore: snapshot: %s databases are backed up with their own tools", d.Dialect)
	}
	if _, err := d.ExecContext(ctx, "VACUUM INTO ?", path); err != nil {
		return fmt.Errorf("sqlstore: snapshot: %w", err)
	}
	snap, err := openSnapshot(path, false)
	if err != nil {
		return err
	}
	defer snap.Close()
	if _, err := snap.ExecContext(ctx, "PRAGMA journal_mode=DELETE"); err != nil {
		return fmt.Errorf("sqlstore: snapshot journal mode: %w", err)
	}
	return nil
}

// SnapshotInfo is what a SQLite snapshot holds: the goose schema version,
// the rows of each table, and the blob keys its images hold.
type SnapshotInfo struct {
	SchemaVersion int64
	Tables        map[string]int64
	ImageKeys     []string
}

// InspectSnapshot reads a snapshot file without changing it (read-only).
func InspectSnapshot(ctx context.Context, path string) (SnapshotInfo, error) {
	snap, err := openSnapshot(path, true)
	if err != nil {
		return SnapshotInfo{}, err
	}
	defer snap.Close()
	db := &DB{DB: snap, Dialect: SQLite}
	var info SnapshotInfo
	if info.SchemaVersion, err = SchemaVersion(ctx, db); err != nil {
		return SnapshotInfo{}, err
	}
	tables, err := db.tables(ctx)
	if err != nil {
		return SnapshotInfo{}, err
	}
	info.Tables = make(map[string]int64, len(tables))
	for _, t := range tables {
		var n int64
		if err := snap.GetContext(ctx, &n, "SELECT COUNT(*) FROM "+quoteIdent(t)); err != nil {
			return SnapshotInfo{}, fmt.Errorf("sqlstore: count %s: %w", t, err)
		}
		info.Tables[t] = n
	}
	if _, ok := info.Tables["images"]; ok {
		if err := snap.SelectContext(ctx, &info.ImageKeys, "SELECT blob_key FROM images ORDER BY blob_key"); err != nil {
			return SnapshotInfo{}, fmt.Errorf("sqlstore: image keys: %w", err)
		}
	}
	return info, nil
}

// FirstRow names a table holding a row, other than goose's version table;
// "" when the database holds none: a database a restore may fill.
func (d *DB) FirstRow(ctx context.Context) (string, error) {
	tables, err := d.tables(ctx)
	if err != nil {
		return "", err
	}
	for _, t := range tables {
		if t == versionTable {
			continue
		}
		var one []int
		if err := d.SelectContext(ctx, &one, "SELECT 1 FROM "+quoteIdent(t)+" LIMIT 1"); err != nil {
			return "", fmt.Errorf("sqlstore: read %s: %w", t, err)
		}
		if len(one) > 0 {
			return t, nil
		}
	}
	return "", nil
}

// Restore replaces the whole content of this SQLite database with the
// snapshot at path through SQLite's online backup API (page by page, under
// the database's own locks, WAL included). Nothing else may use the
// database meanwhile: the caller checks it holds no rows (FirstRow) and
// migrates it afterwards.
func (d *DB) Restore(ctx context.Context, path string) error {
	if d.Dialect != SQLite {
		return fmt.Errorf("sqlstore: restore: only SQLite snapshots can be restored, not into %s", d.Dialect)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	conn, err := d.Conn(ctx)
	if err != nil {
		return fmt.Errorf("sqlstore: restore: %w", err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		r, ok := dc.(interface {
			NewRestore(string) (*sqlite.Backup, error)
		})
		if !ok {
			return fmt.Errorf("driver connection %T has no online backup", dc)
		}
		b, err := r.NewRestore(snapshotURI(abs, true))
		if err != nil {
			return err
		}
		if _, err := b.Step(-1); err != nil {
			b.Finish()
			return err
		}
		return b.Finish()
	})
	if err != nil {
		return fmt.Errorf("sqlstore: restore %s: %w", path, err)
	}
	return nil
}

// SchemaVersion is the highest goose version applied to the database (0 for
// none).
func SchemaVersion(ctx context.Context, db *DB) (int64, error) {
	p, err := provider(db)
	if err != nil {
		return 0, err
	}
	v, err := p.GetDBVersion(ctx)
	if err != nil {
		return 0, fmt.Errorf("sqlstore: schema version: %w", err)
	}
	return v, nil
}

// LatestVersion is the newest migration this binary embeds for the dialect
// (goose reads a version from the digits before a file name's "_"): a
// database at a higher version was written by a newer Tandem.
func LatestVersion(d Dialect) (int64, error) {
	names, err := migrations.Names(string(d))
	if err != nil {
		return 0, fmt.Errorf("sqlstore: migrations of %s: %w", d, err)
	}
	var latest int64
	for _, name := range names {
		digits, _, ok := strings.Cut(name, "_")
		if !ok || !strings.HasSuffix(name, ".sql") {
			continue
		}
		v, err := strconv.ParseInt(digits, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("sqlstore: migration %s: %w", name, err)
		}
		latest = max(latest, v)
	}
	if latest == 0 {
		return 0, errors.New("sqlstore: no migrations embedded")
	}
	return latest, nil
}

// tables lists the database's own tables (not SQLite's), sorted.
func (d *DB) tables(ctx context.Context) ([]string, error) {
	var names []string
	err := d.SelectContext(ctx, &names,
		"SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")
	if err != nil {
		return nil, fmt.Errorf("sqlstore: list tables: %w", err)
	}
	sort.Strings(names)
	return names, nil
}

func openSnapshot(path string, readOnly bool) (*sqlx.DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	db, err := sqlx.Open("sqlite", snapshotURI(abs, readOnly))
	if err != nil {
		return nil, fmt.Errorf("sqlstore: open snapshot: %w", err)
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// snapshotURI is a URI for the file at the absolute path: escaped, so '?'
// or '#' in a directory name cannot cut it short.
func snapshotURI(abs string, readOnly bool) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs), OmitHost: true}
	if readOnly {
		u.RawQuery = "mode=ro"
	}
	return u.String()
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
