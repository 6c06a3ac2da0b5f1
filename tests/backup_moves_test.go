// This file holds the test of a backup that moves: made under one
// TANDEM_PUBLIC_URL, restored into a fresh database and store, served
// under another, every image is named and served by the new host. On
// SQLite (the snapshot) and on MySQL (the operator's dump, kept in the
// backup with --dump and checked at restore).

package tests

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"tandem/adapters/sqlstore"
	"tandem/adapters/sqlstore/sqltest"
)

// site is one deployment's storage: a database of the dialect (empty until
// a server migrates it) and a disk blob store.
type site struct {
	prof profile
	dsn  string
	env  map[string]string // TANDEM_DB, TANDEM_BLOBS
}

func newSite(t *testing.T, d sqlstore.Dialect) site {
	t.Helper()
	dsn := sqltest.Config(t, d).DSN
	return site{prof: profile{name: string(d), sql: d}, dsn: dsn,
		env: map[string]string{"TANDEM_DB": string(d) + ":" + dsn, "TANDEM_BLOBS": "file:" + filepath.Join(t.TempDir(), "blobs")}}
}

// serveAt serves the site on a free port under the public address
// http://HOST:PORT, and returns the app and that address.
func (s site) serveAt(t *testing.T, host string) (*harness, string) {
	t.Helper()
	addr := freePort(t)
	_, port, _ := net.SplitHostPort(addr)
	public := "http://" + host + ":" + port
	opts := []option{withEnv("TANDEM_ADDR", addr), withEnv("TANDEM_PUBLIC_URL", public),
		withEnv("TANDEM_IMAGES_RATE_LIMIT", "100000"), withUnboundedWrites()}
	for k, v := range s.env {
		opts = append(opts, withEnv(k, v))
	}
	return newHarness(t, s.prof, opts...), public
}

// getURL GETs an absolute address, as an app's image view does.
func getURL(t *testing.T, url string) (int, []byte) {
	t.Helper()
	c := &http.Client{Timeout: 10 * time.Second}
	res, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

// fileAddresses lists every string of a JSON body that names a file
// (holds /files/): image urls and memory images alike, within records
// answered as JSON strings too.
func fileAddresses(t *testing.T, body []byte) []string {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			var inner any // the image list answers each record as a JSON string (the spec's shape)
			if strings.HasPrefix(x, "{") && json.Unmarshal([]byte(x), &inner) == nil {
				walk(inner)
			} else if strings.Contains(x, "/files/") {
				out = append(out, x)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

// moving is what the source deployment holds: a user, an upload of two
// images and one of one, a memory showing all three, and each file's
// bytes as the source served them, by key.
type moving struct {
	u       user
	groupID string
	files   map[string][]byte
}

func seedMoving(t *testing.T, h *harness, public string) moving {
	t.Helper()
	m := moving{u: h.newUser("ann@example.com"), files: map[string][]byte{}}
	two := h.mustUpload(m.u, filePart("a.png", "image/png", pngFile(t)), filePart("b.jpg", "image/jpeg", jpegFile(t)))
	one := h.mustUpload(m.u, filePart("c.png", "image/png", noisePNG(t, 3, 24)))
	m.groupID = two.GroupID
	var urls []string
	for _, f := range append(two.Files, one.Files...) {
		if f.Data.URL != public+"/files/"+f.Data.Key {
			t.Fatalf("uploaded under %s as %q", public, f.Data.URL)
		}
		status, b := getURL(t, f.Data.URL)
		if status != 200 || len(b) == 0 {
			t.Fatalf("the source serves %s: %d", f.Data.URL, status)
		}
		m.files[f.Data.Key] = b
		urls = append(urls, f.Data.URL)
	}
	r := h.post(memoriesPath(m.u), m.u.Token, map[string]any{"action": "create", "title": "Trip", "date": "2025-06-01", "images": urls})
	expect(t, r, 200, "")
	return m
}

// servesFrom reads the user's images and memories over HTTP (list, one
// image, a group, memories, the export) and checks that every address
// names public and serves the file's bytes, and that old appears nowhere.
func (m moving) servesFrom(t *testing.T, h *harness, public, old string) {
	t.Helper()
	list := h.get(imagesPath(m.u), m.u.Token)
	expect(t, list, 200, "")
	var records []string // each a JSON string (the spec's shape)
	var first struct {
		ID string `json:"_id"`
	}
	if err := json.Unmarshal(list.Body, &records); err != nil || len(records) != 3 || json.Unmarshal([]byte(records[0]), &first) != nil {
		t.Fatalf("images %s (%v)", list.Body, err)
	}
	seen := map[string]int{}
	for _, c := range []struct {
		path  string
		files int // addresses the answer holds
	}{
		{imagesPath(m.u), 3},
		{imagesPath(m.u) + "/" + first.ID, 1},
		{imagesPath(m.u) + "/group/" + m.groupID, 2},
		{memoriesPath(m.u), 3},
		{"/api/users/user/" + m.u.ID + "/export", 6}, // images and memories
	} {
		r := h.get(c.path, m.u.Token)
		expect(t, r, 200, "")
		if bytes.Contains(r.Body, []byte(old)) {
			t.Fatalf("GET %s names the old host %s: %s", c.path, old, r.Body)
		}
		addrs := fileAddresses(t, r.Body)
		if len(addrs) != c.files {
			t.Fatalf("GET %s holds %d file addresses, want %d: %s", c.path, len(addrs), c.files, r.Body)
		}
		for _, a := range addrs {
			key, ok := strings.CutPrefix(a, public+"/files/")
			if !ok || m.files[key] == nil {
				t.Fatalf("GET %s names %q, not a file under %s", c.path, a, public)
			}
			seen[key]++
			status, b := getURL(t, a)
			if status != 200 || !bytes.Equal(b, m.files[key]) {
				t.Fatalf("GET %s: %d, %d bytes, not the %d the source served", a, status, len(b), len(m.files[key]))
			}
		}
	}
	if len(seen) != len(m.files) {
		t.Fatalf("files named %v, want every one of %d", seen, len(m.files))
	}
}

// TestBackupRestoredUnderAnotherPublicURLServesEveryImageFromThere: data
// with images made under public address A, backed up (SQLite: the
// snapshot; MySQL: mysqldump, kept with --dump), restored into a fresh
// database and store, served under public address B (another host name,
// another port): every image url and memory image names B and GETting it
// returns the file, and A is named nowhere.
func TestBackupRestoredUnderAnotherPublicURLServesEveryImageFromThere(t *testing.T) {
	parallel(t)
	for _, d := range sqltest.Dialects(t) {
		t.Run(string(d), func(t *testing.T) {
			parallel(t)
			src := newSite(t, d)
			h, a := src.serveAt(t, "127.0.0.1")
			m := seedMoving(t, h, a)

			dir := filepath.Join(t.TempDir(), "backup")
			args := []string{"backup", dir}
			if d == sqlstore.MySQL {
				dump := filepath.Join(t.TempDir(), "tandem.sql")
				mysqlClient(t, "mysqldump", src.dsn, "--single-transaction", "--quick", "--result-file="+dump)
				args = append(args, "--dump", dump)
			}
			out, err := command(src.env, args...)
			if err != nil || strings.Contains(out, "warning") {
				t.Fatalf("backup: %v\n%s", err, out)
			}
			if d == sqlstore.MySQL { // the dump is in the backup, its size and SHA-256 in the manifest
				var man struct{ Database map[string]any }
				raw, _ := os.ReadFile(filepath.Join(dir, "manifest.json"))
				if err := json.Unmarshal(raw, &man); err != nil {
					t.Fatal(err)
				}
				size, sum := sha256File(t, args[3])
				if kept, _ := sha256File(t, filepath.Join(dir, "database.sql")); kept != size || man.Database["dialect"] != "mysql" ||
					man.Database["file"] != "database.sql" || man.Database["size"] != float64(size) || man.Database["sha256"] != sum {
					t.Fatalf("manifest %s, the dump has %d bytes, SHA-256 %s", raw, size, sum)
				}
			}

			dst := newSite(t, d)
			out, err = command(dst.env, "restore", dir)
			if err != nil {
				t.Fatalf("restore: %v\n%s", err, out)
			}
			if d == sqlstore.MySQL {
				if !strings.Contains(out, "verified: database.sql") || !strings.Contains(out, "now load the verified dump") {
					t.Fatalf("restore said:\n%s", out)
				}
				mysqlClient(t, "mysql", dst.dsn, "--execute=source "+filepath.Join(dir, "database.sql"))
				if out, err := command(dst.env, "migrate"); err != nil {
					t.Fatalf("migrate: %v\n%s", err, out)
				}
			}
			h2, b := dst.serveAt(t, "localhost")
			if a == b {
				t.Fatalf("the same public address twice: %s", a)
			}
			m.servesFrom(t, h2, b, a)
		})
	}
}

// mysqlClient runs the MySQL client tool (mysqldump, mysql) against the
// database of dsn, with args after the connection's; it fails the test
// when the tool fails.
func mysqlClient(t *testing.T, tool, dsn string, args ...string) {
	t.Helper()
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	host, port, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		t.Fatal(err)
	}
	conn := []string{"--protocol=TCP", "--host=" + host, "--port=" + port, "--user=" + cfg.User, "--default-character-set=utf8mb4"}
	cmd := exec.Command(tool, append(append(conn, args...), cfg.DBName)...)
	cmd.Env = append(os.Environ(), "MYSQL_PWD="+cfg.Passwd)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", tool, err, out)
	}
}

// sha256File is a file's size and SHA-256, as the manifest records them.
func sha256File(t *testing.T, name string) (int64, string) {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return int64(len(b)), hex.EncodeToString(sum[:])
}
