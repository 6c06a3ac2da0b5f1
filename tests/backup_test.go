package tests

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"io"
	"io/fs"
	"maps"
	"math/rand/v2"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tandem/adapters/sqlstore"
	"tandem/adapters/sqlstore/sqltest"
	"tandem/bootstrap"
	"tandem/migrations"
)

// Backups: `tandem backup DIR` while the service runs and writes go on,
// `tandem restore DIR` into a fresh SQLite database and disk store, an app
// on the restored data; and every refusal of the two commands.

var sqliteProfile = profile{name: "sqlite", sql: sqlstore.SQLite}

// deployment is where one instance keeps its data: a SQLite file and a disk
// blob store, named as TANDEM_DB and TANDEM_BLOBS name them.
type deployment struct{ db, blobs string }

func newDeployment(t *testing.T) deployment {
	t.Helper()
	return deployment{db: sqltest.Config(t, sqlstore.SQLite).DSN, blobs: filepath.Join(t.TempDir(), "blobs")}
}

func (d deployment) env() map[string]string {
	return map[string]string{"TANDEM_DB": "sqlite:" + d.db, "TANDEM_BLOBS": "file:" + d.blobs}
}

// serve starts an app on the deployment; opts may override its variables.
func (d deployment) serve(t *testing.T, opts ...option) *harness {
	t.Helper()
	all := []option{withEnv("TANDEM_IMAGES_RATE_LIMIT", "100000"), withUnboundedWrites()}
	for k, v := range d.env() {
		all = append(all, withEnv(k, v))
	}
	return newHarness(t, sqliteProfile, append(all, opts...)...)
}

// command runs `tandem ARGS...` through bootstrap.Run with env as its
// environment, as cmd/tandem does; it returns what it printed.
func command(env map[string]string, args ...string) (string, error) {
	var out bytes.Buffer
	err := bootstrap.Run(context.Background(), args, func(k string) (string, bool) {
		if k == "TANDEM_LOG_LEVEL" {
			return "fatal", true
		}
		v, ok := env[k]
		return v, ok
	}, &out)
	return out.String(), err
}

// noisePNG is a PNG of w x w pixels drawn from seed: distinct bytes per seed,
// and large enough (~w*w*4 bytes) not to compress away.
func noisePNG(t testing.TB, seed uint64, w int) []byte {
	r := rand.New(rand.NewPCG(seed, 7))
	img := image.NewRGBA(image.Rect(0, 0, w, w))
	for y := range w {
		for x := range w {
			img.Set(x, y, color.RGBA{R: uint8(r.Uint32()), G: uint8(r.Uint32()), B: uint8(r.Uint32()), A: 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// written is one write the API acknowledged: a message, a memory or an
// uploaded file, with the instant its answer arrived.
type written struct {
	kind  string // message, memory, image
	user  int
	id    string // message or memory id, image key
	data  []byte // image bytes
	ackAt time.Time
}

// exported reads u's export and indexes its messages, memories and images
// by id (images by key), each as canonical JSON.
func exported(t *testing.T, h *harness, u user) map[string]map[string]string {
	t.Helper()
	r := h.get("/api/users/user/"+u.ID+"/export", u.Token)
	expect(t, r, 200, "")
	data := r.JSON(t)["data"].(map[string]any)
	out := map[string]map[string]string{}
	for section, idField := range map[string]string{"messages": "id", "memories": "id", "images": "key"} {
		out[section] = map[string]string{}
		items, _ := data[section].([]any)
		for _, it := range items {
			rec := it.(map[string]any)
			b, _ := json.Marshal(rec) // map keys sorted: canonical
			out[section][rec[idField].(string)] = string(b)
		}
	}
	return out
}

var sectionOf = map[string]string{"message": "messages", "memory": "memories", "image": "images"}

func TestBackupWhileWritingRestoresEveryAcknowledgedRecord(t *testing.T) {
	parallel(t)
	src := newDeployment(t)
	h := src.serve(t)

	// three couples
	const couples = 3
	users := make([]user, 2*couples)
	for i := range users {
		users[i] = h.newUser("backup" + strconv.Itoa(i) + "@example.com")
	}
	for i := 0; i < len(users); i += 2 {
		h.pair(users[i], users[i+1])
	}

	// one writer per user: upload a file, a memory showing it, a message;
	// again and again until told to stop
	var (
		mu    sync.Mutex
		log   []written
		sent  = map[[32]byte]bool{} // every file body ever sent
		stop  = make(chan struct{})
		wg    sync.WaitGroup
		iters = make([]atomic.Int64, len(users))
	)
	record := func(w written) {
		mu.Lock()
		log = append(log, w)
		mu.Unlock()
	}
	send := func(r req) (response, bool) {
		res, err := h.send(h.request(r))
		if err != nil || res.Status != 200 {
			t.Errorf("%s %s: %v %d %s", r.Method, r.Path, err, res.Status, res.Body)
			return res, false
		}
		return res, true
	}
	const maxIters = 80 // under the free plan's 100 memories
	for ui, u := range users {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < maxIters; i++ {
				select {
				case <-stop:
					return
				default:
				}
				file := noisePNG(t, uint64(ui*1000+i), 48)
				mu.Lock()
				sent[sha256.Sum256(file)] = true
				mu.Unlock()
				body, ct := multipartBody(t, filePart("p.png", "image/png", file))
				res, ok := send(req{Method: "POST", Path: imagesPath(u), Token: u.Token, Body: body, Headers: map[string]string{"Content-Type": ct}})
				if !ok {
					return
				}
				var up uploaded
				_ = json.Unmarshal(res.Body, &up)
				record(written{kind: "image", user: ui, id: up.Files[0].Data.Key, data: file, ackAt: time.Now()})

				res, ok = send(req{Method: "POST", Path: memoriesPath(u), Token: u.Token, Body: map[string]any{"action": "create",
					"title": "Day " + strconv.Itoa(i), "description": "by " + strconv.Itoa(ui), "date": "2025-06-01",
					"images": []string{up.Files[0].Data.URL}}})
				if !ok {
					return
				}
				record(written{kind: "memory", user: ui, id: res.JSON(t)["id"].(string), ackAt: time.Now()})

				res, ok = send(req{Method: "POST", Path: "/api/messages/send", Token: u.Token, Body: map[string]any{"body": "message " + strconv.Itoa(i)},
					Headers: map[string]string{"X-API-Key": testAPIKey}})
				if !ok {
					return
				}
				record(written{kind: "message", user: ui, id: res.JSON(t)["id"].(string), ackAt: time.Now()})
				iters[ui].Add(1)
			}
		}()
	}
	waitIters := func(n int64) {
		deadline := time.Now().Add(2 * time.Minute)
		for ui := range iters {
			for iters[ui].Load() < n && !t.Failed() {
				if time.Now().After(deadline) {
					t.Fatalf("writer %d made %d rounds", ui, iters[ui].Load())
				}
				time.Sleep(5 * time.Millisecond)
			}
		}
	}

	// back up while the writers run
	waitIters(10)
	backupDir := filepath.Join(t.TempDir(), "backup")
	began := time.Now()
	out, err := command(src.env(), "backup", backupDir)
	ended := time.Now()
	if err != nil {
		t.Fatalf("backup: %v\n%s", err, out)
	}
	atEnd := make([]int64, len(iters))
	for ui := range iters {
		atEnd[ui] = iters[ui].Load()
	}
	for ui := range iters { // a few more rounds after the backup, then stop
		for iters[ui].Load() < min(atEnd[ui]+3, maxIters) && !t.Failed() {
			time.Sleep(5 * time.Millisecond)
		}
	}
	close(stop)
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	t.Logf("backup took %v:\n%s", ended.Sub(began).Round(time.Millisecond), out)

	var m struct {
		Database struct{ Tables map[string]int64 }
		Blobs    struct {
			Count   int
			Bytes   int64
			Missing []string
		}
	}
	raw, err := os.ReadFile(filepath.Join(backupDir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Blobs.Missing) != 0 {
		t.Fatalf("files missing although nothing was deleted: %v", m.Blobs.Missing)
	}

	// restore into a fresh database and store, and serve it
	dst := newDeployment(t)
	if out, err := command(dst.env(), "restore", backupDir); err != nil {
		t.Fatalf("restore: %v\n%s", err, out)
	} else if !strings.Contains(out, "database: restored at schema version") {
		t.Fatalf("restore said:\n%s", out)
	}
	h2 := dst.serve(t)

	// every write acknowledged before the backup began is there, exactly as
	// the source shows it; every restored record is the source's; every
	// restored image's file is the source's, byte for byte
	before := map[string]int{}
	during := map[string]int{}
	found := map[string]int{}
	var beforeBytes int64
	srcExports := make([]map[string]map[string]string, len(users))
	dstExports := make([]map[string]map[string]string, len(users))
	for ui, u := range users {
		srcExports[ui], dstExports[ui] = exported(t, h, u), exported(t, h2, u)
	}
	for _, w := range log {
		switch {
		case w.ackAt.Before(began):
			before[w.kind]++
		case w.ackAt.Before(ended):
			during[w.kind]++
			continue
		default:
			continue
		}
		section := sectionOf[w.kind]
		got, ok := dstExports[w.user][section][w.id]
		if !ok {
			t.Errorf("%s %s of user %d, acknowledged %v before the backup began, is not in the restored export",
				w.kind, w.id, w.user, began.Sub(w.ackAt))
			continue
		}
		if want := srcExports[w.user][section][w.id]; got != want {
			t.Errorf("%s %s restored as %s, the source shows %s", w.kind, w.id, got, want)
		}
		found[w.kind]++
		if w.kind == "image" {
			beforeBytes += int64(len(w.data))
			expectFile(t, h2.fetch("/files/"+w.id), "image/png", w.data)
			found["file"]++
		}
	}
	restoredImages := 0
	for ui, u := range users {
		for section, recs := range dstExports[ui] {
			for id, got := range recs {
				if want, ok := srcExports[ui][section][id]; !ok || got != want {
					t.Errorf("restored %s %s is %s, the source has %s", section, id, got, want)
				}
				if section != "images" {
					continue
				}
				restoredImages++
				r := h2.fetch("/files/" + id)
				if r.Status != 200 || !sent[sha256.Sum256(r.Body)] || !bytes.Equal(r.Body, h.fetch("/files/"+id).Body) {
					t.Errorf("restored image %s of %s: file %d, %d bytes, not what was uploaded", id, u.ID, r.Status, len(r.Body))
				}
			}
		}
	}
	if int64(restoredImages) != m.Database.Tables["images"] {
		t.Errorf("%d images restored, the snapshot holds %d", restoredImages, m.Database.Tables["images"])
	}
	t.Logf("acknowledged before the backup began: %d messages, %d memories, %d images (%d bytes of files); found after restore: %d, %d, %d and %d files byte for byte",
		before["message"], before["memory"], before["image"], beforeBytes, found["message"], found["memory"], found["image"], found["file"])
	t.Logf("acknowledged while the backup ran: %d messages, %d memories, %d images; writes in all: %d",
		during["message"], during["memory"], during["image"], len(log))
	t.Logf("snapshot: %d messages, %d memories, %d images, %d accounts; blob store copy: %d files, %d bytes (%d files without a row in the snapshot)",
		m.Database.Tables["messages"], m.Database.Tables["memories"], m.Database.Tables["images"], m.Database.Tables["accounts"],
		m.Blobs.Count, m.Blobs.Bytes, int64(m.Blobs.Count)-m.Database.Tables["images"])
	if before["message"] == 0 || before["image"] == 0 {
		t.Fatal("nothing was written before the backup")
	}
}

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
	names, err := fs.Glob(migrations.FS, "sqlite/*.sql")
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

// TestBackupReportsAFileDeletedAfterTheSnapshot: an image deleted between
// the snapshot and the copy of its file leaves a row without a file; the
// backup names it (output and manifest) instead of passing it over.
func TestBackupReportsAFileDeletedAfterTheSnapshot(t *testing.T) {
	parallel(t)
	p := newPopulated(t)
	// the file goes as if its image had been deleted after the snapshot
	if err := os.Remove(filepath.Join(p.src.blobs, filepath.FromSlash(p.key))); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "backup")
	out, err := command(p.src.env(), "backup", dir)
	if err != nil || !strings.Contains(out, "warning: "+p.key+": its image is in the snapshot but the file was deleted") {
		t.Fatalf("backup: %v\n%s", err, out)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if !strings.Contains(string(raw), `"missing": [`+"\n      "+jsonStr(p.key)) {
		t.Fatalf("manifest: %s", raw)
	}
	dst := newDeployment(t)
	out, err = command(dst.env(), "restore", dir)
	if err != nil || !strings.Contains(out, "warning: "+p.key+": its image was deleted while the backup ran") {
		t.Fatalf("restore: %v\n%s", err, out)
	}
}

// TestBackupAndRestoreOnS3: the files come from one bucket and go into
// another, content types kept; the restored app redirects to them. On the
// in-process fake and on a real SeaweedFS under CI.
func TestBackupAndRestoreOnS3(t *testing.T) {
	parallel(t)
	for _, srv := range s3Servers(t) {
		t.Run(srv.name, func(t *testing.T) { backupAndRestoreOnS3(t, srv) })
	}
}

func backupAndRestoreOnS3(t *testing.T, srv s3Server) {
	names := map[string]string{"photos": srv.make(t), "restored": srv.make(t)}
	bucket := func(name string) string { return srv.blobs(names[name]) }

	src := newDeployment(t)
	h := src.serve(t, withEnv("TANDEM_BLOBS", bucket("photos")))
	u := h.newUser("ann@example.com")
	jpegB := jpegFile(t)
	up := h.mustUpload(u, filePart("a.jpg", "image/jpeg", jpegB), filePart("b.webp", "image/webp", webpFile))
	env := src.env()
	env["TANDEM_BLOBS"] = bucket("photos")
	dir := filepath.Join(t.TempDir(), "backup")
	if out, err := command(env, "backup", dir); err != nil || !strings.Contains(out, "blobs: 2 files") {
		t.Fatalf("backup: %v\n%s", err, out)
	}

	dst := newDeployment(t)
	env = dst.env()
	env["TANDEM_BLOBS"] = bucket("restored")
	if out, err := command(env, "restore", dir); err != nil {
		t.Fatalf("restore: %v\n%s", err, out)
	}
	again := maps.Clone(env) // a fresh database, the bucket now filled
	again["TANDEM_DB"] = "sqlite:" + newDeployment(t).db
	out, err := command(again, "restore", dir)
	wantRefusal(t, out, err, "TANDEM_BLOBS is not empty")

	h2 := dst.serve(t, withEnv("TANDEM_BLOBS", bucket("restored")))
	for i, want := range []struct {
		data []byte
		ct   string
	}{{jpegB, "image/jpeg"}, {webpFile, "image/png"}} { // stored re-encoded: the WEBP has transparency
		r := h2.fetch(up.Files[i].Data.URL)
		loc := r.Header.Get("Location")
		if r.Status != 302 || !strings.HasPrefix(loc, srv.url+"/"+names["restored"]+"/") {
			t.Fatalf("%d %q", r.Status, loc)
		}
		res, err := http.Get(loc)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != want.ct {
			t.Fatalf("file %d: %d %q, %d bytes", i, res.StatusCode, res.Header.Get("Content-Type"), len(got))
		}
		samePicture(t, got, want.data, 40)
	}
}
