// This file holds the refusals of backup and restore: a target that is not
// empty, memory stores, MySQL, a tampered backup, and the deployment a
// refusal leaves untouched.

package tests

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tandem/adapters/sqlstore/sqltest"
)

// populated is a deployment with one user, one uploaded file and one
// message, and a backup of it in a directory of its own.
type populated struct {
	src    deployment
	h      *harness
	u      user
	key    string
	file   []byte
	backup string
}

func newPopulated(t *testing.T) populated {
	t.Helper()
	p := populated{src: newDeployment(t)}
	p.h = p.src.serve(t)
	p.u = p.h.newUser("ann@example.com")
	p.file = noisePNG(t, 1, 16)
	up := p.h.mustUpload(p.u, filePart("a.png", "image/png", p.file))
	p.key = up.Files[0].Data.Key
	p.h.sendMessage(p.u, "hello")
	p.backup = filepath.Join(t.TempDir(), "backup")
	if out, err := command(p.src.env(), "backup", p.backup); err != nil {
		t.Fatalf("backup: %v\n%s", err, out)
	}
	return p
}

// copyTree copies the backup in from to a new directory and returns it.
func copyTree(t *testing.T, from string) string {
	t.Helper()
	to := filepath.Join(t.TempDir(), "copy")
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o750)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o640)
	})
	if err != nil {
		t.Fatal(err)
	}
	return to
}

// filesUnder lists the files under dir (none when it does not exist).
func filesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if os.IsNotExist(err) && p == dir {
			return nil
		}
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// untouched fails unless the deployment has neither a database file nor a
// stored file: a refused restore wrote nothing.
func untouched(t *testing.T, d deployment) {
	t.Helper()
	if _, err := os.Stat(d.db); !os.IsNotExist(err) {
		t.Errorf("the database file was written (%v)", err)
	}
	if got := filesUnder(t, d.blobs); len(got) != 0 {
		t.Errorf("files were restored: %v", got)
	}
}

func wantRefusal(t *testing.T, out string, err error, fragments ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("accepted:\n%s", out)
	}
	for _, f := range fragments {
		if !strings.Contains(err.Error(), f) {
			t.Fatalf("the refusal %q does not say %q", err, f)
		}
	}
}

func TestBackupRefusals(t *testing.T) {
	parallel(t)
	t.Run("a directory that is not empty", func(t *testing.T) {
		p := newPopulated(t)
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o600); err != nil {
			t.Fatal(err)
		}
		out, err := command(p.src.env(), "backup", dir)
		wantRefusal(t, out, err, dir+" is not empty")
		if got := filesUnder(t, dir); strings.Join(got, ",") != "notes.txt" {
			t.Fatalf("the directory now holds %v", got)
		}
		out, err = command(p.src.env(), "backup", p.backup) // an earlier backup is no exception
		wantRefusal(t, out, err, "is not empty")
	})

	t.Run("memory stores and a missing database", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "b")
		for _, env := range []map[string]string{
			{"TANDEM_DB": "memory", "TANDEM_BLOBS": "file:" + t.TempDir()},
			{"TANDEM_DB": "sqlite:" + filepath.Join(t.TempDir(), "t.db"), "TANDEM_BLOBS": "memory"},
		} {
			out, err := command(env, "backup", dir)
			wantRefusal(t, out, err, "memory keeps nothing")
		}
		out, err := command(map[string]string{"TANDEM_DB": "sqlite:" + filepath.Join(t.TempDir(), "none.db")}, "backup", dir)
		wantRefusal(t, out, err, "TANDEM_DB", "no such file")
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Fatalf("a refused backup made its directory (%v)", err)
		}
	})

	t.Run("MySQL: the database part is refused with the pointer, the files are copied", func(t *testing.T) {
		p := newPopulated(t)
		// The command never connects to MySQL, so any DSN serves; CI's is used when there is one.
		dsn := os.Getenv(sqltest.EnvMySQL)
		if dsn == "" {
			dsn = "root@tcp(127.0.0.1:1)/tandem"
		}
		env := map[string]string{"TANDEM_DB": "mysql:" + dsn, "TANDEM_BLOBS": "file:" + p.src.blobs}
		dir := filepath.Join(t.TempDir(), "mysql-backup")
		out, err := command(env, "backup", dir)
		if err != nil {
			t.Fatalf("backup: %v\n%s", err, out)
		}
		for _, f := range []string{"database: refused: TANDEM_DB is MySQL", "mysqldump --single-transaction", `docs/operations.md, section "Backups"`, "blobs: 1 files"} {
			if !strings.Contains(out, f) {
				t.Fatalf("the output does not say %q:\n%s", f, out)
			}
		}
		var m map[string]any
		raw, _ := os.ReadFile(filepath.Join(dir, "manifest.json"))
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		if m["database"] != nil || !strings.Contains(m["databaseNote"].(string), `docs/operations.md, section "Backups"`) {
			t.Fatalf("manifest: %s", raw)
		}
		if got, _ := os.ReadFile(filepath.Join(dir, "blobs", filepath.FromSlash(p.key))); !bytes.Equal(got, p.file) {
			t.Fatalf("the file was not copied: %d bytes", len(got))
		}

		// its restore: never into SQLite; into MySQL the files only
		dst := newDeployment(t)
		out, err = command(dst.env(), "restore", dir)
		wantRefusal(t, out, err, "holds no database", `docs/operations.md, section "Backups"`)
		untouched(t, dst)
		env["TANDEM_BLOBS"] = "file:" + dst.blobs
		out, err = command(env, "restore", dir)
		if err != nil || !strings.Contains(out, "load your MySQL dump, then run tandem migrate") {
			t.Fatalf("restore of the files: %v\n%s", err, out)
		}
		if got := filesUnder(t, dst.blobs); strings.Join(got, ",") != p.key {
			t.Fatalf("restored %v", got)
		}
	})
}

func TestRestoreRefusals(t *testing.T) {
	parallel(t)
	p := newPopulated(t)

	t.Run("a database that holds a row", func(t *testing.T) {
		dst := newDeployment(t)
		dst.db = p.src.db // the source itself: it has accounts
		out, err := command(dst.env(), "restore", p.backup)
		wantRefusal(t, out, err, "TANDEM_DB "+p.src.db+" is not empty", "has rows")
		if got := filesUnder(t, dst.blobs); len(got) != 0 {
			t.Fatalf("files were restored: %v", got)
		}
	})

	t.Run("a blob store that holds a file", func(t *testing.T) {
		dst := newDeployment(t)
		if err := os.MkdirAll(filepath.Join(dst.blobs, "u", "someone"), 0o750); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst.blobs, "u", "someone", "old.png"), []byte("x"), 0o640); err != nil {
			t.Fatal(err)
		}
		out, err := command(dst.env(), "restore", p.backup)
		wantRefusal(t, out, err, "TANDEM_BLOBS is not empty (it holds u/someone/old.png)")
		if _, err := os.Stat(dst.db); !os.IsNotExist(err) {
			t.Fatalf("the database was written (%v)", err)
		}
	})

	t.Run("a tampered file, database, manifest or an extra file", func(t *testing.T) {
		flip := func(name string) func(t *testing.T, dir string) {
			return func(t *testing.T, dir string) {
				f := filepath.Join(dir, filepath.FromSlash(name))
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				b[len(b)/2] ^= 1
				if err := os.WriteFile(f, b, 0o640); err != nil {
					t.Fatal(err)
				}
			}
		}
		for _, tc := range []struct {
			name   string
			tamper func(t *testing.T, dir string)
			says   []string
		}{
			{"one bit of a file", flip("blobs/" + p.key), []string{"does not match its manifest", "blobs/" + p.key, "SHA-256", "nothing was restored"}},
			{"one bit of the database", flip("database.sqlite"), []string{"does not match its manifest", "database.sqlite: ", "SHA-256"}},
			{"a file the manifest does not list", func(t *testing.T, dir string) {
				if err := os.WriteFile(filepath.Join(dir, "blobs", "u", "extra.png"), []byte("x"), 0o640); err != nil {
					t.Fatal(err)
				}
			}, []string{"does not match its manifest", "blobs/u/extra.png is in no manifest entry"}},
			{"a checksum changed in the manifest", func(t *testing.T, dir string) {
				f := filepath.Join(dir, "manifest.json")
				b, _ := os.ReadFile(f)
				var m map[string]any
				_ = json.Unmarshal(b, &m)
				files := m["blobs"].(map[string]any)["files"].([]any)
				files[0].(map[string]any)["sha256"] = strings.Repeat("0", 64)
				b, _ = json.Marshal(m)
				if err := os.WriteFile(f, b, 0o640); err != nil {
					t.Fatal(err)
				}
			}, []string{"does not match its manifest", "blobs/" + p.key}},
			{"a key that leaves the store", func(t *testing.T, dir string) {
				f := filepath.Join(dir, "manifest.json")
				b, _ := os.ReadFile(f)
				b = bytes.Replace(b, []byte(`"key": "`+p.key), []byte(`"key": "../../`+p.key), 1)
				if err := os.WriteFile(f, b, 0o640); err != nil {
					t.Fatal(err)
				}
			}, []string{"is not a file key"}},
			{"no manifest", func(t *testing.T, dir string) {
				if err := os.Remove(filepath.Join(dir, "manifest.json")); err != nil {
					t.Fatal(err)
				}
			}, []string{"has no manifest.json: it is no backup, or one that was cut short"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				dir := copyTree(t, p.backup)
				tc.tamper(t, dir)
				dst := newDeployment(t)
				out, err := command(dst.env(), "restore", dir)
				wantRefusal(t, out, err, tc.says...)
				untouched(t, dst)
			})
		}
	})

	t.Run("memory targets", func(t *testing.T) {
		for _, env := range []map[string]string{
			{"TANDEM_DB": "memory", "TANDEM_BLOBS": "file:" + t.TempDir()},
			{"TANDEM_DB": "sqlite:" + filepath.Join(t.TempDir(), "t.db"), "TANDEM_BLOBS": "memory"},
		} {
			out, err := command(env, "restore", p.backup)
			wantRefusal(t, out, err, "memory keeps nothing")
		}
	})

	t.Run("a SQLite snapshot into MySQL", func(t *testing.T) {
		dst := newDeployment(t)
		env := dst.env()
		env["TANDEM_DB"] = "mysql:root@tcp(127.0.0.1:1)/tandem"
		out, err := command(env, "restore", p.backup)
		wantRefusal(t, out, err, "SQLite snapshot and TANDEM_DB is MySQL")
		untouched(t, dst)
	})
}
