package tests

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
	for _, p := range profiles(t) {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
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
