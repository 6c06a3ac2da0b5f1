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
	"maps"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tandem/adapters/sqlstore"
	"tandem/adapters/sqlstore/sqltest"
	"tandem/bootstrap"
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
