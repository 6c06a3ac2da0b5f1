package tests

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"tandem/adapters/sqlstore"
)

// smallDisk mounts a tmpfs of size bytes for the blob store. It needs root
// (CI runs as root); elsewhere the test says why it cannot run.
func smallDisk(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("mount tmpfs: %v: %s", err, out)
		}
		t.Skipf("cannot mount a small tmpfs here (needs root): %v", err)
	}
	t.Cleanup(func() { _ = exec.Command("umount", dir).Run() })
	return dir
}

// noisyPNG is a real PNG of about 4·w·h bytes (noise does not compress).
func noisyPNG(t *testing.T, w, h int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(uint64(w), uint64(h)))
	for i := range img.Pix {
		img.Pix[i] = uint8(r.IntN(256))
	}
	img.Set(0, 0, color.NRGBA{A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// blobFiles lists the files under dir: stored blobs and temporary ones.
func blobFiles(t *testing.T, dir string) (stored, temporary []string) {
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if strings.HasPrefix(d.Name(), ".tmp-") {
				temporary = append(temporary, p)
			} else {
				stored = append(stored, p)
			}
		}
		return nil
	})
	return stored, temporary
}

// A full blob disk: the upload that does not fit answers 507 with the error
// body and leaves nothing behind: no image row, no file, no temporary file.
func TestFaultBlobDiskFull(t *testing.T) {
	parallel(t)
	for _, p := range profiles(t) {
		t.Run(p.name, func(t *testing.T) {
			parallel(t)
			dir := smallDisk(t, "640k")
			h := newHarness(t, p, withEnv("TANDEM_BLOBS", "file:"+dir), withEnv("TANDEM_IMAGES_RATE_LIMIT", "1000"))
			diskFull(t, h, dir)
		})
	}
}

func diskFull(t *testing.T, h *harness, dir string) {
	u := h.newUser("full@x.io")
	photo := noisyPNG(t, 200, 200) // ~160 KB
	var accepted int
	var full response
	for range 8 {
		r := h.upload(u, filePart("p.png", "image/png", photo))
		if r.Status != 200 {
			full = r
			break
		}
		accepted++
	}
	expect(t, full, 507, errBody("insufficient_storage", "no room left to store the file; try again later"))
	if accepted == 0 {
		t.Fatal("not even one photo fitted")
	}
	list := h.get(imagesPath(u), u.Token)
	expect(t, list, 200, "")
	stored, temporary := blobFiles(t, filepath.Join(dir, "u", u.ID))
	if len(temporary) != 0 || len(stored) != accepted {
		t.Fatalf("%d accepted; on disk %d files and temporary %v", accepted, len(stored), temporary)
	}
	// a two-file upload that cannot fit whole stores neither file
	r := h.upload(u, filePart("a.png", "image/png", photo), filePart("b.png", "image/png", photo))
	expect(t, r, 507, "")
	if again, temp := blobFiles(t, filepath.Join(dir, "u", u.ID)); len(again) != accepted || len(temp) != 0 {
		t.Fatalf("after a refused two-file upload: %d files, temporary %v", len(again), temp)
	}
}

// fillDisk writes a file into dir until the disk has no byte left, and
// returns its path: removing it frees the space.
func fillDisk(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, chunk := range []int{64 << 10, 4 << 10, 512, 1} {
		buf := make([]byte, chunk)
		for {
			if _, err := f.Write(buf); err != nil {
				if !errors.Is(err, syscall.ENOSPC) {
					t.Fatal(err)
				}
				break
			}
		}
	}
	return path
}

// The SQLite database and the blobs on one disk that fills up: every write
// (an event, a message, an upload) answers 507 insufficient_storage with the
// error body, not 500; /readyz says degraded (200: reads still work);
// reads answer 200. Once space is freed, writes succeed again at once and
// /readyz is ready; nothing is half-written: the integrity check passes and
// the image rows are the files on disk.
func TestFaultDatabaseDiskFull(t *testing.T) {
	parallel(t)
	dir := smallDisk(t, "8m")
	h := newHarness(t, profile{name: "sqlite", sql: sqlstore.SQLite},
		withEnv("TANDEM_DB", "sqlite:"+filepath.Join(dir, "tandem.db")), withEnv("TANDEM_BLOBS", "file:"+filepath.Join(dir, "blobs")),
		withEnv("TANDEM_IMAGES_RATE_LIMIT", "1000"), withUnboundedWrites()) // it writes until the disk is full
	u := h.newUser("dbfull@x.io")
	photo := noisyPNG(t, 30, 30)
	send := func(body string) response {
		return h.keyed("POST", "/api/messages/send", u, map[string]any{"body": body})
	}
	event := func(title string) response {
		return h.post(eventsPath(u), u.Token, map[string]any{"action": "create", "title": title, "startDate": "2025-06-20"})
	}
	expect(t, send("before"), 200, "")
	expect(t, event("before"), 200, "")
	expect(t, h.upload(u, filePart("p.png", "image/png", photo)), 200, "")

	filler := fillDisk(t, dir)
	// The WAL still has room of its own: writes go on until it must grow.
	var refused response
	accepted := 0
	for ; accepted < 2000; accepted++ {
		if refused = send(fmt.Sprint("filling ", accepted)); refused.Status != 200 {
			break
		}
	}
	full := errBody("insufficient_storage", "no room left to store this; try again later")
	expect(t, refused, 507, full)
	for range 3 {
		expect(t, send("while full"), 507, full)
		expect(t, event("while full"), 507, full)
		r := h.upload(u, filePart("p.png", "image/png", photo))
		expect(t, r, 507, "")
		if code := r.JSON(t)["code"]; code != "insufficient_storage" {
			t.Fatalf("upload on a full disk: %s", r.Body)
		}
	}
	expect(t, h.get("/readyz", ""), 200, `{"status":"degraded","code":"insufficient_storage","message":"no room left to store this; try again later"}`)
	expect(t, h.get(eventsPath(u), u.Token), 200, "")
	expect(t, h.get(imagesPath(u), u.Token), 200, "")
	expect(t, h.keyed("GET", "/api/messages/list", u, nil), 200, "")

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	recovered := waitFor(t, 5*time.Second, "writes succeed once space is freed", func() bool { return send("after").Status == 200 })
	expect(t, h.get("/readyz", ""), 200, `{"status":"ready"}`)
	expect(t, event("after"), 200, "")
	expect(t, h.upload(u, filePart("p.png", "image/png", photo)), 200, "")

	ctx := context.Background()
	var integrity string
	if err := h.DB.GetContext(ctx, &integrity, "PRAGMA integrity_check"); err != nil || integrity != "ok" {
		t.Fatalf("integrity_check: %q %v", integrity, err)
	}
	var keys []string
	if err := h.DB.SelectContext(ctx, &keys, "SELECT blob_key FROM images ORDER BY blob_key"); err != nil {
		t.Fatal(err)
	}
	stored, temporary := blobFiles(t, filepath.Join(dir, "blobs"))
	for i := range stored {
		stored[i], _ = filepath.Rel(filepath.Join(dir, "blobs"), stored[i])
	}
	slices.Sort(stored)
	if len(temporary) != 0 || !slices.Equal(keys, stored) {
		t.Fatalf("image rows %v, files %v, temporary %v", keys, stored, temporary)
	}
	t.Logf("disk full: %d writes fitted in the WAL, then 507; writes again %v after the space was freed; %d images = %d files",
		accepted, recovered.Round(time.Millisecond), len(keys), len(stored))
}
