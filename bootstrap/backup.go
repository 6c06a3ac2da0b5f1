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
	"mime"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"sort"
	"time"

	"tandem/adapters/sqlstore"
	"tandem/core"
	"tandem/modules/images"
)

// The layout of a backup directory.
const (
	manifestName   = "manifest.json"
	snapshotName   = "database.sqlite"
	dumpName       = "database.sql" // a MySQL dump given with --dump
	snapshotMode   = 0o600
	blobsDirName   = "blobs"
	manifestFormat = 1
	// backupsDoc points operators at the README section on backups.
	backupsDoc = `docs/operations.md, section "Backups"`
)

// manifest describes one backup. It is written last: a directory without
// one holds a backup that was cut short. Field names are the format: do not
// rename them.
type manifest struct {
	Format        int       `json:"format"`
	CreatedAt     time.Time `json:"createdAt"`
	TandemVersion string    `json:"tandemVersion,omitempty"`
	// Database is the SQLite snapshot, or the MySQL dump given to backup
	// with --dump (dialect mysql: file, size and SHA-256 only); nil when
	// the database is not in the backup (MySQL without --dump: see
	// DatabaseNote).
	Database     *manifestDB   `json:"database"`
	DatabaseNote string        `json:"databaseNote,omitempty"`
	Blobs        manifestBlobs `json:"blobs"`
}

type manifestDB struct {
	Dialect       string           `json:"dialect"`
	File          string           `json:"file"`
	Size          int64            `json:"size"`
	SHA256        string           `json:"sha256"`
	SchemaVersion int64            `json:"schemaVersion,omitempty"` // SQLite
	Tables        map[string]int64 `json:"tables,omitempty"`        // SQLite
}

type manifestBlobs struct {
	Count int            `json:"count"`
	Bytes int64          `json:"bytes"`
	Files []manifestFile `json:"files"`
	// Missing are the keys of images in the snapshot whose file was deleted
	// (the image deleted or replaced) after the snapshot and before the copy.
	Missing []string `json:"missing"`
	Note    string   `json:"note"`
}

type manifestFile struct {
	Key         string `json:"key"`
	Size        int64  `json:"size"`
	SHA256      string `json:"sha256"`
	ContentType string `json:"contentType,omitempty"`
}

const blobsNote = "copied after the database snapshot: every image row of the snapshot has its file " +
	"(except those listed in missing); files without a row (uploads that finished after the snapshot) are harmless: " +
	"no record points at them and GET /files serves only files of stored images"

// backup writes a snapshot of the deployment that cfg names into dir: the
// SQLite database (VACUUM INTO, while the service runs), then the blob
// store's files, then the manifest. On MySQL the operator dumps the
// database first and names the dump with --dump FILE: it is copied into
// the backup and recorded (size, SHA-256) for restore to check; without
// --dump the database part is refused (the operator keeps the dump) and the
// files are still copied.
func backup(ctx context.Context, cfg Config, args []string, stdout io.Writer) error {
	dir, dump, err := backupArgs(args)
	if err != nil {
		return err
	}
	if cfg.DB.Kind == DBMemory || cfg.Blobs.Kind == "memory" {
		return errors.New("backup: TANDEM_DB and TANDEM_BLOBS must name a database and a store outside this process (memory keeps nothing another process can read)")
	}
	if cfg.DB.Kind == DBSQLite {
		if dump != "" {
			return errors.New("backup: --dump names a MySQL dump, and TANDEM_DB is SQLite: the backup snapshots the database itself")
		}
		if _, err := os.Stat(cfg.DB.DSN); err != nil {
			return fmt.Errorf("backup: TANDEM_DB: %w", err)
		}
	}
	if dump != "" {
		if info, err := os.Stat(dump); err != nil || !info.Mode().IsRegular() || info.Size() == 0 {
			return fmt.Errorf("backup: --dump %s: not a MySQL dump file (%v)", dump, describeDump(info, err))
		}
	}
	if err := emptyDir(dir); err != nil {
		return err
	}
	m := manifest{Format: manifestFormat, CreatedAt: time.Now().UTC(), TandemVersion: tandemVersion()}

	var imageKeys []string
	switch {
	case cfg.DB.Kind == DBSQLite:
		db, keys, err := backupSQLite(ctx, cfg.DB.DSN, dir)
		if err != nil {
			return err
		}
		m.Database, imageKeys = db, keys
		fmt.Fprintf(stdout, "database: SQLite snapshot at schema version %d, %d rows in %d tables\n",
			db.SchemaVersion, sumRows(db.Tables), len(db.Tables))
	case dump != "":
		if m.Database, err = copyDump(dump, dir, stdout); err != nil {
			return err
		}
	default:
		m.DatabaseNote = "not in this backup: Tandem does not back up MySQL; dump it with " +
			"mysqldump --single-transaction (or your own tool) before running tandem backup, and name the dump with --dump FILE, see " + backupsDoc
		fmt.Fprintln(stdout, "database: refused: TANDEM_DB is MySQL; back it up with mysqldump --single-transaction "+
			"or your own tool, before this command, and name the dump with --dump FILE to keep it in the backup, as "+backupsDoc+
			" shows; the blob store is copied anyway")
	}

	store, err := openBlobs(cfg.Blobs)
	if err != nil {
		return err
	}
	if m.Blobs, err = copyBlobs(ctx, store, dir, imageKeys); err != nil {
		return err
	}
	m.Blobs.Note = blobsNote
	fmt.Fprintf(stdout, "blobs: %d files, %d bytes\n", m.Blobs.Count, m.Blobs.Bytes)
	for _, key := range m.Blobs.Missing {
		fmt.Fprintf(stdout, "warning: %s: its image is in the snapshot but the file was deleted before it could be copied (the image was deleted or replaced meanwhile)\n", key)
	}

	if err := writeManifest(dir, m); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backup written to %s (%s)\n", dir, manifestName)
	return nil
}

// emptyDir makes dir, or checks that it is an empty directory: a backup
// never mixes with other files.
func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return fmt.Errorf("backup: %w", err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("backup: %s: %w", dir, err)
	}
	if len(entries) > 0 {
		return fmt.Errorf("backup: %s is not empty: a backup goes into a new or empty directory", dir)
	}
	return nil
}

// backupSQLite snapshots the database at path into dir and describes the
// snapshot; it also returns the blob keys its images hold.
func backupSQLite(ctx context.Context, path, dir string) (*manifestDB, []string, error) {
	db, err := sqlstore.Open(ctx, sqlstore.Config{Dialect: sqlstore.SQLite, DSN: path})
	if err != nil {
		return nil, nil, err
	}
	defer db.Close()
	// The copy holds password hashes and pending codes, as the database
	// does: 0600 as it is. Made empty first (VACUUM INTO takes an empty
	// file), so it is never readable by others, whatever the umask.
	file := filepath.Join(dir, snapshotName)
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, snapshotMode)
	if err == nil {
		err = errors.Join(f.Chmod(snapshotMode), f.Close())
	}
	if err != nil {
		return nil, nil, fmt.Errorf("backup: %w", err)
	}
	if err := db.Snapshot(ctx, file); err != nil {
		return nil, nil, fmt.Errorf("backup: %w", err)
	}
	info, err := sqlstore.InspectSnapshot(ctx, file)
	if err != nil {
		return nil, nil, fmt.Errorf("backup: %w", err)
	}
	size, sum, err := hashFile(file)
	if err != nil {
		return nil, nil, err
	}
	return &manifestDB{Dialect: string(sqlstore.SQLite), File: snapshotName, Size: size, SHA256: sum,
		SchemaVersion: info.SchemaVersion, Tables: info.Tables}, info.ImageKeys, nil
}

// copyBlobs copies every file of the store into dir/blobs, then makes sure
// each of imageKeys (the snapshot's images) was copied: a file the walk did
// not meet is fetched by its key, and one that is gone is reported missing.
func copyBlobs(ctx context.Context, store images.Blobs, dir string, imageKeys []string) (manifestBlobs, error) {
	out := manifestBlobs{Files: []manifestFile{}, Missing: []string{}}
	copied := map[string]bool{}
	copyOne := func(key string) (bool, error) {
		f, err := copyBlob(ctx, store, dir, key)
		if core.IsKind(err, core.KindNotFound) {
			return false, nil // deleted since it was listed
		}
		if err != nil {
			return false, err
		}
		out.Files = append(out.Files, f)
		out.Bytes += f.Size
		copied[key] = true
		return true, nil
	}
	err := store.Walk(ctx, "", func(key string, _ int64) error {
		_, err := copyOne(key)
		return err
	})
	if err != nil {
		return manifestBlobs{}, fmt.Errorf("backup: blobs: %w", err)
	}
	for _, key := range imageKeys {
		if copied[key] {
			continue
		}
		ok, err := copyOne(key)
		if err != nil {
			return manifestBlobs{}, fmt.Errorf("backup: blobs: %w", err)
		}
		if !ok {
			out.Missing = append(out.Missing, key)
		}
	}
	sort.Slice(out.Files, func(i, j int) bool { return out.Files[i].Key < out.Files[j].Key })
	out.Count = len(out.Files)
	return out, nil
}

// copyBlob copies one file to dir/blobs/KEY, hashing it on the way.
func copyBlob(ctx context.Context, store images.Blobs, dir, key string) (manifestFile, error) {
	if err := images.CheckBlobKey(key); err != nil {
		return manifestFile{}, fmt.Errorf("%q: %w", key, err)
	}
	rc, info, err := store.Open(ctx, key)
	if err != nil {
		return manifestFile{}, err
	}
	defer rc.Close()
	target := blobPath(dir, key)
	if err := os.MkdirAll(filepath.Dir(target), 0o750); err != nil {
		return manifestFile{}, err
	}
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o640)
	if err != nil {
		return manifestFile{}, err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), rc)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(target)
		return manifestFile{}, fmt.Errorf("%s: %w", key, err)
	}
	return manifestFile{Key: key, Size: n, SHA256: hex.EncodeToString(h.Sum(nil)), ContentType: info.ContentType}, nil
}

func blobPath(dir, key string) string {
	return filepath.Join(dir, blobsDirName, filepath.FromSlash(key))
}

// writeManifest writes the manifest through a temporary file, synced, then
// renamed: it appears whole, and last.
func writeManifest(dir string, m manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, "."+manifestName+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o640)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	_, err = f.Write(append(b, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, manifestName))
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("backup: manifest: %w", err)
	}
	return nil
}

// hashFile returns the size and SHA-256 (hex) of a file.
func hashFile(name string) (int64, string, error) {
	f, err := os.Open(name)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return 0, "", fmt.Errorf("%s: %w", name, err)
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}

// tandemVersion is the module version the binary was built as, else its VCS
// revision; "" when neither is known (go run outside a checkout, tests).
func tandemVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev == "" {
		return ""
	}
	return rev + dirty
}

func sumRows(tables map[string]int64) int64 {
	var n int64
	for _, c := range tables {
		n += c
	}
	return n
}

// contentTypeOf is a restored file's type when the manifest has none: the
// key's extension, as the disk store tells it.
func contentTypeOf(f manifestFile) string {
	if f.ContentType != "" {
		return f.ContentType
	}
	if t := mime.TypeByExtension(path.Ext(f.Key)); t != "" {
		return t
	}
	return "application/octet-stream"
}
