// This file holds the MySQL dump of a backup: `tandem backup DIR --dump
// FILE` keeps the operator's dump in the backup with its size and SHA-256,
// and `tandem restore DIR` refuses a dump that differs, before it writes
// anything. The commands never connect to MySQL, so any DSN serves.

package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tandem/adapters/sqlstore/sqltest"
)

// fakeDump is what mysqldump writes, in small.
const fakeDump = "-- MariaDB dump 10.19  Distrib 10.11.19-MariaDB\n" +
	"CREATE TABLE `accounts` (`id` varchar(36) NOT NULL, PRIMARY KEY (`id`)) ENGINE=InnoDB;\n" +
	"INSERT INTO `accounts` VALUES ('u1');\n" +
	"-- Dump completed on 2025-06-15 12:00:00\n"

// mysqlEnv names a MySQL database (never connected to) and blobs.
func mysqlEnv(blobs string) map[string]string {
	dsn := os.Getenv(sqltest.EnvMySQL)
	if dsn == "" {
		dsn = "root@tcp(127.0.0.1:1)/tandem"
	}
	return map[string]string{"TANDEM_DB": "mysql:" + dsn, "TANDEM_BLOBS": "file:" + blobs}
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	if err := os.WriteFile(name, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return name
}

func TestBackupKeepsTheMySQLDumpAndRestoreChecksIt(t *testing.T) {
	parallel(t)
	p := newPopulated(t)
	env := mysqlEnv(p.src.blobs)
	dump := writeFile(t, filepath.Join(t.TempDir(), "tandem.sql"), fakeDump)
	dir := filepath.Join(t.TempDir(), "backup")
	out, err := command(env, "backup", dir, "--dump", dump)
	if err != nil || !strings.Contains(out, "database: MySQL dump "+dump+" copied as database.sql, "+itoa(int64(len(fakeDump)))+" bytes, SHA-256 ") ||
		!strings.Contains(out, "blobs: 1 files") || strings.Contains(out, "warning") || strings.Contains(out, "refused") {
		t.Fatalf("backup: %v\n%s", err, out)
	}
	size, sum := sha256File(t, dump)
	var m struct {
		Database     map[string]any
		DatabaseNote *string
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"dialect": "mysql", "file": "database.sql", "size": float64(size), "sha256": sum}
	if len(m.Database) != len(want) || m.DatabaseNote != nil {
		t.Fatalf("manifest %s", raw)
	}
	for k, v := range want {
		if m.Database[k] != v {
			t.Fatalf("manifest database.%s is %v, want %v: %s", k, m.Database[k], v, raw)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "database.sql")); err != nil || string(b) != fakeDump {
		t.Fatalf("the dump in the backup: %q %v", b, err)
	}
	if info, err := os.Stat(filepath.Join(dir, "database.sql")); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("the dump's mode: %v %v (it holds what the database holds: 0600)", info.Mode(), err)
	}

	t.Run("a dump that differs is refused before anything is written", func(t *testing.T) {
		for _, tc := range []struct {
			name   string
			tamper func(t *testing.T, dir string)
			says   []string
		}{
			{"one bit", func(t *testing.T, dir string) {
				b, _ := os.ReadFile(filepath.Join(dir, "database.sql"))
				b[len(b)/2] ^= 1
				writeFile(t, filepath.Join(dir, "database.sql"), string(b))
			}, []string{"does not match its manifest", "database.sql (the MySQL dump): ", "SHA-256", "do not load it", "nothing was restored"}},
			{"cut short", func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "database.sql"), fakeDump[:len(fakeDump)/2])
			}, []string{"database.sql (the MySQL dump): " + itoa(int64(len(fakeDump)/2)) + " bytes", "the manifest says " + itoa(size) + " bytes"}},
			{"another dump", func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "database.sql"), strings.Replace(fakeDump, "'u1'", "'u2'", 1))
			}, []string{"database.sql (the MySQL dump)", "SHA-256"}},
			{"gone", func(t *testing.T, dir string) {
				if err := os.Remove(filepath.Join(dir, "database.sql")); err != nil {
					t.Fatal(err)
				}
			}, []string{"database.sql (the MySQL dump)", "no such file"}},
			{"another file named in the manifest", func(t *testing.T, dir string) {
				f := filepath.Join(dir, "manifest.json")
				b, _ := os.ReadFile(f)
				writeFile(t, f, strings.Replace(string(b), `"file": "database.sql"`, `"file": "../elsewhere.sql"`, 1))
			}, []string{`the database file is "../elsewhere.sql", not database.sql`}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				dir := copyTree(t, dir)
				tc.tamper(t, dir)
				dst := newDeployment(t)
				out, err := command(mysqlEnv(dst.blobs), "restore", dir)
				wantRefusal(t, out, err, tc.says...)
				untouched(t, dst)
			})
		}
	})

	t.Run("into SQLite: refused", func(t *testing.T) {
		dst := newDeployment(t)
		out, err := command(dst.env(), "restore", dir)
		wantRefusal(t, out, err, "is a MySQL dump (database.sql) and TANDEM_DB is SQLite")
		untouched(t, dst)
	})

	t.Run("the dump as made: verified, the files restored, the loading said", func(t *testing.T) {
		dst := newDeployment(t)
		out, err := command(mysqlEnv(dst.blobs), "restore", dir)
		if err != nil {
			t.Fatalf("restore: %v\n%s", err, out)
		}
		for _, f := range []string{"verified: 1 files", "and the database", "verified: database.sql, " + itoa(size) + " bytes, SHA-256 " + sum,
			"now load the verified dump", filepath.Join(dir, "database.sql"), "then run tandem migrate"} {
			if !strings.Contains(out, f) {
				t.Fatalf("restore does not say %q:\n%s", f, out)
			}
		}
		if got := filesUnder(t, dst.blobs); strings.Join(got, ",") != p.key {
			t.Fatalf("restored %v", got)
		}
	})
}

func TestBackupDumpRefusals(t *testing.T) {
	parallel(t)
	p := newPopulated(t)
	dump := writeFile(t, filepath.Join(t.TempDir(), "tandem.sql"), fakeDump)
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		says []string
	}{
		{"--dump on SQLite", p.src.env(), []string{"--dump", dump}, []string{"--dump names a MySQL dump, and TANDEM_DB is SQLite"}},
		{"a dump that is not there", mysqlEnv(p.src.blobs), []string{"--dump", dump + ".missing"}, []string{"not a MySQL dump file", "no such file"}},
		{"an empty dump", mysqlEnv(p.src.blobs), []string{"--dump=" + writeFile(t, filepath.Join(t.TempDir(), "empty.sql"), "")},
			[]string{"not a MySQL dump file (it is empty)"}},
		{"a directory", mysqlEnv(p.src.blobs), []string{"--dump", t.TempDir()}, []string{"not a regular file"}},
		{"--dump without its file", mysqlEnv(p.src.blobs), []string{"--dump"}, []string{"--dump needs the dump's file", "usage: tandem backup DIR [--dump FILE]"}},
		{"--dump twice", mysqlEnv(p.src.blobs), []string{"--dump", dump, "--dump=" + dump}, []string{"--dump is given twice"}},
		{"an unknown flag", mysqlEnv(p.src.blobs), []string{"--dmup", dump}, []string{"unknown flag --dmup"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "backup")
			out, err := command(tc.env, append([]string{"backup", dir}, tc.args...)...)
			wantRefusal(t, out, err, tc.says...)
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Fatalf("a refused backup made its directory (%v)", err)
			}
		})
	}

	t.Run("a dump without mysqldump's last line: kept, with a warning", func(t *testing.T) {
		cut := writeFile(t, filepath.Join(t.TempDir(), "cut.sql"), fakeDump[:strings.Index(fakeDump, "-- Dump completed")])
		dir := filepath.Join(t.TempDir(), "backup")
		out, err := command(mysqlEnv(p.src.blobs), "backup", "--dump", cut, dir) // the flag before DIR too
		if err != nil || !strings.Contains(out, "warning: "+cut+` does not end with "-- Dump completed"`) ||
			!strings.Contains(out, "copied as database.sql") {
			t.Fatalf("backup: %v\n%s", err, out)
		}
	})
}
