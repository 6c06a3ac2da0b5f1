package bootstrap

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"

	"tandem/adapters/sqlstore"
	"tandem/modules/images"
)

// restore fills the empty database and blob store that cfg names from the
// backup in dir. Before it writes anything it checks that the backup's
// schema is not newer than this binary's migrations, that both targets are
// empty and that every file matches the manifest's checksum. Then the files
// go in first and the database last (a service started in between sees no
// image without its file), and migrations run up. A backup made on MySQL
// holds the operator's dump (backup --dump): restore checks its size and
// SHA-256 with the rest, puts the files back and leaves the loading of the
// verified dump to the operator (the MySQL client, then tandem migrate);
// it neither reads nor writes the MySQL database.
func restore(ctx context.Context, cfg Config, args []string, stdout io.Writer) error {
	if len(args) != 1 {
		return errors.New("usage: tandem restore DIR")
	}
	dir := args[0]
	if cfg.DB.Kind == DBMemory || cfg.Blobs.Kind == "memory" {
		return errors.New("restore: TANDEM_DB and TANDEM_BLOBS must name a database and a store that outlive this command (memory keeps nothing)")
	}
	m, err := readManifest(dir)
	if err != nil {
		return err
	}
	snapshot := m.Database != nil && m.Database.Dialect == string(sqlstore.SQLite)
	dump := m.Database != nil && m.Database.Dialect == string(sqlstore.MySQL)
	switch {
	case m.Database == nil && cfg.DB.Kind == DBSQLite:
		return fmt.Errorf("restore: %s holds no database (it was made on MySQL): load the database from your dump into MySQL "+
			"and restore the files with TANDEM_DB naming that database, see %s", dir, backupsDoc)
	case m.Database != nil && !snapshot && !dump:
		return fmt.Errorf("restore: unknown database kind %q in the manifest", m.Database.Dialect)
	case snapshot && cfg.DB.Kind == DBMySQL:
		return fmt.Errorf("restore: the backup's database is a SQLite snapshot and TANDEM_DB is MySQL: restore it into TANDEM_DB=sqlite:PATH")
	case dump && cfg.DB.Kind == DBSQLite:
		return fmt.Errorf("restore: the backup's database is a MySQL dump (%s) and TANDEM_DB is SQLite: restore it with TANDEM_DB naming an empty MySQL database", dumpName)
	}
	if snapshot {
		latest, err := sqlstore.LatestVersion(sqlstore.SQLite)
		if err != nil {
			return err
		}
		if m.Database.SchemaVersion > latest {
			return fmt.Errorf("restore: the backup's schema version %d is newer than this binary's migrations (%d): "+
				"restore it with the Tandem that made it, or a newer one", m.Database.SchemaVersion, latest)
		}
		if err := emptySQLite(ctx, cfg.DB.DSN); err != nil {
			return err
		}
	}
	store, err := openBlobs(cfg.Blobs)
	if err != nil {
		return err
	}
	if err := emptyStore(ctx, store); err != nil {
		return err
	}
	if err := verify(ctx, dir, m); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "verified: %d files (%d bytes)%s against %s\n", m.Blobs.Count, m.Blobs.Bytes,
		map[bool]string{true: " and the database", false: ""}[m.Database != nil], manifestName)
	if dump {
		fmt.Fprintf(stdout, "verified: %s, %d bytes, SHA-256 %s, as the manifest says\n", dumpName, m.Database.Size, m.Database.SHA256)
	}

	for _, f := range m.Blobs.Files {
		if err := putBlob(ctx, store, dir, f); err != nil {
			return fmt.Errorf("restore: %s: %w (the files restored so far stay: empty TANDEM_BLOBS before trying again)", f.Key, err)
		}
	}
	fmt.Fprintf(stdout, "blobs: %d files restored\n", m.Blobs.Count)
	for _, key := range m.Blobs.Missing {
		fmt.Fprintf(stdout, "warning: %s: its image was deleted while the backup ran and its file is not in the backup\n", key)
	}
	if m.Database == nil {
		fmt.Fprintf(stdout, "database: not in this backup: load your MySQL dump, then run tandem migrate (%s)\n", backupsDoc)
		return nil
	}
	if dump {
		fmt.Fprintf(stdout, "database: now load the verified dump into the empty MySQL database of TANDEM_DB "+
			"(mysql --default-character-set=utf8mb4 DATABASE < %s), then run tandem migrate (%s)\n",
			filepath.Join(dir, dumpName), backupsDoc)
		return nil
	}
	return restoreSQLite(ctx, cfg.DB.DSN, filepath.Join(dir, snapshotName), m.Database.SchemaVersion, stdout)
}

// readManifest reads and checks dir/manifest.json.
func readManifest(dir string) (manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, manifestName))
	if errors.Is(err, fs.ErrNotExist) {
		return manifest{}, fmt.Errorf("restore: %s has no %s: it is no backup, or one that was cut short", dir, manifestName)
	}
	if err != nil {
		return manifest{}, fmt.Errorf("restore: %w", err)
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return manifest{}, fmt.Errorf("restore: %s: %w", manifestName, err)
	}
	if m.Format != manifestFormat {
		return manifest{}, fmt.Errorf("restore: %s: format %d, this binary reads format %d", manifestName, m.Format, manifestFormat)
	}
	return m, nil
}

// emptySQLite refuses a database that holds any row (goose's own table
// aside); a file that does not exist yet is empty.
func emptySQLite(ctx context.Context, path string) error {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	db, err := sqlstore.Open(ctx, sqlstore.Config{Dialect: sqlstore.SQLite, DSN: path})
	if err != nil {
		return err
	}
	defer db.Close()
	return refuseRows(ctx, db, path)
}

func refuseRows(ctx context.Context, db *sqlstore.DB, path string) error {
	table, err := db.FirstRow(ctx)
	if err != nil {
		return err
	}
	if table != "" {
		return fmt.Errorf("restore: TANDEM_DB %s is not empty (%s has rows): a restore goes into an empty database", path, table)
	}
	return nil
}

// errStoreUsed stops the walk of a store that holds a file.
var errStoreUsed = errors.New("store holds a file")

func emptyStore(ctx context.Context, store images.Blobs) error {
	var first string
	err := store.Walk(ctx, "", func(key string, _ int64) error {
		first = key
		return errStoreUsed
	})
	if errors.Is(err, errStoreUsed) {
		return fmt.Errorf("restore: TANDEM_BLOBS is not empty (it holds %s): a restore goes into an empty store", first)
	}
	if err != nil {
		return fmt.Errorf("restore: TANDEM_BLOBS: %w", err)
	}
	return nil
}

// verify checks every file of the backup against the manifest (size and
// SHA-256), that the snapshot says what the manifest says, and that the
// blobs folder holds no file the manifest does not list.
func verify(ctx context.Context, dir string, m manifest) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("restore: %s does not match its manifest: %s; nothing was restored", dir, fmt.Sprintf(format, args...))
	}
	if db := m.Database; db != nil && db.Dialect == string(sqlstore.MySQL) {
		if db.File != dumpName {
			return bad("the database file is %q, not %s", db.File, dumpName)
		}
		if err := checkFile(filepath.Join(dir, dumpName), db.Size, db.SHA256); err != nil {
			return bad("%s (the MySQL dump): %v: do not load it", dumpName, err)
		}
	} else if db != nil {
		if db.File != snapshotName {
			return bad("the database file is %q, not %s", db.File, snapshotName)
		}
		if err := checkFile(filepath.Join(dir, snapshotName), db.Size, db.SHA256); err != nil {
			return bad("%s: %v", snapshotName, err)
		}
		info, err := sqlstore.InspectSnapshot(ctx, filepath.Join(dir, snapshotName))
		if err != nil {
			return bad("%s: %v", snapshotName, err)
		}
		if info.SchemaVersion != db.SchemaVersion || !maps.Equal(info.Tables, db.Tables) {
			return bad("%s is at schema version %d with other row counts", snapshotName, info.SchemaVersion)
		}
	}
	listed := make(map[string]bool, len(m.Blobs.Files))
	var total int64
	for _, f := range m.Blobs.Files {
		if err := images.CheckBlobKey(f.Key); err != nil {
			return bad("%q is not a file key", f.Key)
		}
		if listed[f.Key] {
			return bad("%s is listed twice", f.Key)
		}
		listed[f.Key] = true
		total += f.Size
		if err := checkFile(blobPath(dir, f.Key), f.Size, f.SHA256); err != nil {
			return bad("%s/%s: %v", blobsDirName, f.Key, err)
		}
	}
	if m.Blobs.Count != len(m.Blobs.Files) || m.Blobs.Bytes != total {
		return bad("%d files of %d bytes listed, the totals say %d and %d", len(m.Blobs.Files), total, m.Blobs.Count, m.Blobs.Bytes)
	}
	root := filepath.Join(dir, blobsDirName)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == root {
			return nil
		}
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		if key := filepath.ToSlash(rel); !listed[key] {
			return fmt.Errorf("%s/%s is in no manifest entry", blobsDirName, key)
		}
		return nil
	})
	if err != nil {
		return bad("%v", err)
	}
	return nil
}

// checkFile compares a file's size and SHA-256 with the expected ones.
func checkFile(name string, size int64, sum string) error {
	n, got, err := hashFile(name)
	if err != nil {
		return err
	}
	if n != size || got != strings.ToLower(sum) {
		return fmt.Errorf("%d bytes with SHA-256 %s, the manifest says %d bytes with %s", n, got, size, sum)
	}
	return nil
}

// putBlob stores one verified file, hashing it again on the way in: a file
// changed since it was verified is taken out again and fails the restore.
func putBlob(ctx context.Context, store images.Blobs, dir string, f manifestFile) error {
	file, err := os.Open(blobPath(dir, f.Key))
	if err != nil {
		return err
	}
	defer file.Close()
	h := sha256.New()
	if err := store.Put(ctx, f.Key, contentTypeOf(f), io.TeeReader(file, h), f.Size); err != nil {
		return err
	}
	if hex.EncodeToString(h.Sum(nil)) != strings.ToLower(f.SHA256) {
		_ = store.Delete(ctx, f.Key)
		return errors.New("the file changed after it was verified")
	}
	return nil
}

// restoreSQLite copies the snapshot into the (empty) database at path, then
// migrates it up to this binary's schema.
func restoreSQLite(ctx context.Context, path, snapshot string, from int64, stdout io.Writer) error {
	db, err := sqlstore.Open(ctx, sqlstore.Config{Dialect: sqlstore.SQLite, DSN: path})
	if err != nil {
		return err
	}
	defer db.Close()
	if err := refuseRows(ctx, db, path); err != nil { // filled since it was checked
		return err
	}
	if err := db.Restore(ctx, snapshot); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	if err := sqlstore.Migrate(ctx, db, nil); err != nil {
		return fmt.Errorf("restore: the snapshot is in place but did not migrate: %w", err)
	}
	to, err := sqlstore.SchemaVersion(ctx, db)
	if err != nil {
		return err
	}
	if to != from {
		fmt.Fprintf(stdout, "database: restored at schema version %d, migrated up to %d\n", from, to)
	} else {
		fmt.Fprintf(stdout, "database: restored at schema version %d\n", to)
	}
	return nil
}
