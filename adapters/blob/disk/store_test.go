package disk_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"
	"time"

	"tandem/adapters/blob/disk"
	"tandem/adapters/storetest"
	"tandem/modules/images"
)

func newStore(t *testing.T) (*disk.Store, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "blobs")
	s, err := disk.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s, dir
}

func TestBlobStore(t *testing.T) {
	storetest.BlobStore(t, func(t *testing.T) images.Blobs { s, _ := newStore(t); return s })
}

// files lists every file under dir, relative, temporary ones included.
func files(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
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

func TestFilesLandUnderTheRootWithPrivateModes(t *testing.T) {
	s, dir := newStore(t)
	ctx := context.Background()
	data := []byte("\xff\xd8\xff jpeg bytes")
	if err := s.Put(ctx, "u/user-1/ab.jpg", "image/jpeg", bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, "u", "user-1", "ab.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v, want 0640", st.Mode().Perm())
	}
	if got := files(t, dir); strings.Join(got, ",") != "u/user-1/ab.jpg" {
		t.Fatalf("files %v", got)
	}
}

func TestAFailedWriteLeavesNoFile(t *testing.T) {
	s, dir := newStore(t)
	ctx := context.Background()
	boom := errors.New("connection reset")
	r := iotest.TimeoutReader(bytes.NewReader(bytes.Repeat([]byte("x"), 100_000))) // fails on the second read
	if err := s.Put(ctx, "u/user-1/ab.png", "image/png", r, 100_000); err == nil {
		t.Fatal("a failing reader was stored")
	}
	r2 := iotest.ErrReader(boom)
	if err := s.Put(ctx, "u/user-1/cd.png", "image/png", r2, 10); !errors.Is(err, boom) {
		t.Fatalf("got %v", err)
	}
	if got := files(t, dir); len(got) != 0 {
		t.Fatalf("left behind: %v", got)
	}
	// an earlier whole file survives a failed replacement
	good := []byte("whole")
	if err := s.Put(ctx, "u/user-1/ab.png", "image/png", bytes.NewReader(good), 5); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, "u/user-1/ab.png", "image/png", iotest.ErrReader(boom), 5); err == nil {
		t.Fatal("accepted")
	}
	rc, _, err := s.Open(ctx, "u/user-1/ab.png")
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(rc)
	if buf.String() != "whole" || len(files(t, dir)) != 1 {
		t.Fatalf("%q %v", buf.String(), files(t, dir))
	}
}

func TestTemporaryAndOutsideFilesCannotBeRead(t *testing.T) {
	s, dir := newStore(t)
	ctx := context.Background()
	if err := os.WriteFile(filepath.Join(filepath.Dir(dir), "secret.png"), []byte("outside"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "u"), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "u", ".tmp-123"), []byte("partial"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"../secret.png", "u/.tmp-123", "u/../../secret.png"} {
		if _, _, err := s.Open(ctx, key); err == nil {
			t.Fatalf("%s was opened", key)
		}
	}
}

func TestNewRefusesAnUnusableDirectory(t *testing.T) {
	f := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(f, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := disk.New(filepath.Join(f, "blobs")); err == nil {
		t.Fatal("a path under a file was accepted")
	}
}

func TestWalkPassesOverTemporaryAndForeignFiles(t *testing.T) {
	s, dir := newStore(t)
	ctx := context.Background()
	data := []byte("\x89PNG\r\n\x1a\n pixels")
	if err := s.Put(ctx, "u/user-1/ab.png", "image/png", bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatal(err)
	}
	// an unfinished Put, a hidden folder, a name no key may have, a link out
	for name, content := range map[string]string{"u/user-1/.tmp-42": "partial", ".cache/x.png": "x", "u/user-1/a b.png": "x"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o750); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	outside := filepath.Join(filepath.Dir(dir), "secret.png")
	if err := os.WriteFile(outside, []byte("outside"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "u", "user-1", "link.png")); err != nil {
		t.Fatal(err)
	}
	var seen []string
	if err := s.Walk(ctx, "", func(key string, size int64) error {
		seen = append(seen, key+":"+strconv.FormatInt(size, 10))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if strings.Join(seen, ",") != "u/user-1/ab.png:"+strconv.Itoa(len(data)) {
		t.Fatalf("walked %v", seen)
	}
}

func TestSweepTempRemovesOnlyStaleTemporaryFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := disk.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	key := "u/u1/" + strings.Repeat("a", 32) + ".png"
	if err := s.Put(ctx, key, "image/png", strings.NewReader("png"), 3); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, "u", "u1")
	old, young := filepath.Join(folder, ".tmp-old"), filepath.Join(folder, ".tmp-young")
	for _, p := range []string{old, young} {
		if err := os.WriteFile(p, []byte("partial"), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	past := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(old, past, past); err != nil {
		t.Fatal(err)
	}
	if n, err := s.SweepTemp(ctx, time.Hour); err != nil || n != 1 {
		t.Fatalf("swept %d, %v", n, err)
	}
	for p, want := range map[string]bool{old: false, young: true, filepath.Join(dir, filepath.FromSlash(key)): true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Fatalf("%s: exists %v, want %v", p, err == nil, want)
		}
	}
}

// TestModesWhateverTheUmask: the files are 0640 and the directories the
// store makes 0750 exactly, under a umask that would widen them (0) and one
// that would narrow them (0077). Not parallel: the umask is the process's.
func TestModesWhateverTheUmask(t *testing.T) {
	for _, umask := range []int{0, 0o077} {
		t.Run(strconv.FormatInt(int64(umask), 8), func(t *testing.T) {
			old := syscall.Umask(umask)
			defer syscall.Umask(old)
			s, dir := newStore(t)
			data := []byte("bytes")
			if err := s.Put(context.Background(), "u/user-1/ab.jpg", "image/jpeg", bytes.NewReader(data), int64(len(data))); err != nil {
				t.Fatal(err)
			}
			for p, want := range map[string]os.FileMode{dir: 0o750, filepath.Join(dir, "u"): 0o750,
				filepath.Join(dir, "u", "user-1"): 0o750, filepath.Join(dir, "u", "user-1", "ab.jpg"): 0o640} {
				st, err := os.Stat(p)
				if err != nil {
					t.Fatal(err)
				}
				if st.Mode().Perm() != want {
					t.Errorf("%s: %v, want %v", p, st.Mode().Perm(), want)
				}
			}
		})
	}
}
