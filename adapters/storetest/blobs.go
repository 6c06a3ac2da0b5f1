package storetest

import (
	"bytes"
	"errors"
	"io"
	"maps"
	"strings"
	"sync"
	"testing"

	"tandem/core"
	"tandem/modules/images"
)

// BlobStore checks an images.Blobs implementation.
func BlobStore(t *testing.T, newStore func(t *testing.T) images.Blobs) {
	png := append([]byte{0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A}, bytes.Repeat([]byte{0, 1, 2, 0xFF}, 1000)...)
	bs := blobSuite{newStore: newStore, png: png}
	t.Run("put, open, size and content type; unknown key", bs.putAndOpen)
	t.Run("put replaces", bs.putReplaces)
	t.Run("a short reader stores nothing", bs.shortReader)
	t.Run("delete is idempotent and touches only its key", bs.deleteKey)
	t.Run("delete prefix removes one folder only", bs.deletePrefix)
	t.Run("walk sees every file once with its size, under a prefix its folder only", bs.walkEveryFile)
	t.Run("walk stops at fn's error and lets fn use the store", bs.walkStops)
	t.Run("keys that could escape are refused", bs.escapingKeys)
	t.Run("concurrent puts of one key leave one whole file", bs.concurrentPuts)
}

// blobSuite holds BlobStore's helpers and subtests.
type blobSuite struct {
	newStore func(t *testing.T) images.Blobs
	png      []byte
}

func (blobSuite) put(t *testing.T, s images.Blobs, key, contentType string, data []byte) {
	t.Helper()
	must(t, s.Put(ctx, key, contentType, bytes.NewReader(data), int64(len(data))))
}

func (blobSuite) read(t *testing.T, s images.Blobs, key string) ([]byte, images.BlobInfo) {
	t.Helper()
	rc, info, err := s.Open(ctx, key)
	must(t, err)
	defer rc.Close()
	b, err := io.ReadAll(rc)
	must(t, err)
	return b, info
}

func (blobSuite) absent(t *testing.T, s images.Blobs, key string) {
	t.Helper()
	rc, _, err := s.Open(ctx, key)
	if rc != nil {
		rc.Close()
	}
	wantKind(t, err, core.KindNotFound)
}

func (bs blobSuite) putAndOpen(t *testing.T) {
	s := bs.newStore(t)
	bs.put(t, s, "u/user-1/a1.png", "image/png", bs.png)
	got, info := bs.read(t, s, "u/user-1/a1.png")
	if !bytes.Equal(got, bs.png) || info.Size != int64(len(bs.png)) || info.ContentType != "image/png" {
		t.Fatalf("read back %d bytes, info %+v", len(got), info)
	}
	bs.absent(t, s, "u/user-1/nothing.png")
	bs.absent(t, s, "u/user-1") // a folder is no file
}

func (bs blobSuite) putReplaces(t *testing.T) {
	s := bs.newStore(t)
	bs.put(t, s, "u/user-1/a.jpg", "image/jpeg", []byte("first"))
	bs.put(t, s, "u/user-1/a.jpg", "image/jpeg", []byte("second!"))
	if got, info := bs.read(t, s, "u/user-1/a.jpg"); string(got) != "second!" || info.Size != 7 {
		t.Fatalf("%q %+v", got, info)
	}
}

func (bs blobSuite) shortReader(t *testing.T) {
	s := bs.newStore(t)
	err := s.Put(ctx, "u/user-1/short.png", "image/png", bytes.NewReader(bs.png[:100]), int64(len(bs.png)))
	if err == nil {
		t.Fatal("a short body was accepted")
	}
	bs.absent(t, s, "u/user-1/short.png")
}

func (bs blobSuite) deleteKey(t *testing.T) {
	s := bs.newStore(t)
	bs.put(t, s, "u/user-1/a.png", "image/png", bs.png)
	bs.put(t, s, "u/user-1/b.png", "image/png", bs.png)
	must(t, s.Delete(ctx, "u/user-1/a.png"))
	must(t, s.Delete(ctx, "u/user-1/a.png"))
	must(t, s.Delete(ctx, "u/user-9/never.png"))
	bs.absent(t, s, "u/user-1/a.png")
	bs.read(t, s, "u/user-1/b.png")
}

func (bs blobSuite) deletePrefix(t *testing.T) {
	s := bs.newStore(t)
	for _, k := range []string{"u/user-1/a.png", "u/user-1/b.jpg", "u/user-10/c.png", "u/user-2/d.png"} {
		bs.put(t, s, k, "image/png", bs.png)
	}
	must(t, s.DeletePrefix(ctx, "u/user-1/"))
	must(t, s.DeletePrefix(ctx, "u/user-1/"))
	must(t, s.DeletePrefix(ctx, "u/nobody/"))
	bs.absent(t, s, "u/user-1/a.png")
	bs.absent(t, s, "u/user-1/b.jpg")
	bs.read(t, s, "u/user-10/c.png") // a longer id sharing the prefix text stays
	bs.read(t, s, "u/user-2/d.png")
	wantKind(t, s.DeletePrefix(ctx, "u/user-2"), core.KindInvalid) // no trailing slash
	wantKind(t, s.DeletePrefix(ctx, "/"), core.KindInvalid)
	bs.read(t, s, "u/user-2/d.png")
}

func (bs blobSuite) walkEveryFile(t *testing.T) {
	s := bs.newStore(t)
	walk := func(t *testing.T, prefix string) map[string]int64 {
		t.Helper()
		seen := map[string]int64{}
		must(t, s.Walk(ctx, prefix, func(key string, size int64) error {
			if _, twice := seen[key]; twice {
				t.Errorf("%s seen twice", key)
			}
			seen[key] = size
			return nil
		}))
		return seen
	}
	if got := walk(t, ""); len(got) != 0 {
		t.Fatalf("an empty store walks %v", got)
	}
	files := map[string]int64{"u/user-1/a.png": int64(len(bs.png)), "u/user-1/b.jpg": 5, "u/user-10/c.png": 1, "u/user-2/d.png": 2, "x.png": 3}
	for k, n := range files {
		bs.put(t, s, k, "image/png", bs.png[:n])
	}
	if got := walk(t, ""); !maps.Equal(got, files) {
		t.Fatalf("walk: %v, want %v", got, files)
	}
	if got := walk(t, "u/user-1/"); !maps.Equal(got, map[string]int64{"u/user-1/a.png": int64(len(bs.png)), "u/user-1/b.jpg": 5}) {
		t.Fatalf("walk u/user-1/: %v", got) // u/user-10/ shares the text, not the folder
	}
	if got := walk(t, "u/nobody/"); len(got) != 0 {
		t.Fatalf("walk of no folder: %v", got)
	}
	must(t, s.Delete(ctx, "x.png"))
	must(t, s.DeletePrefix(ctx, "u/user-1/"))
	if got := walk(t, ""); !maps.Equal(got, map[string]int64{"u/user-10/c.png": 1, "u/user-2/d.png": 2}) {
		t.Fatalf("walk after deletes: %v", got)
	}
	for _, bad := range []string{"u/user-1", "/", "../", "u/../"} {
		wantKind(t, s.Walk(ctx, bad, func(string, int64) error { return nil }), core.KindInvalid)
	}
}

func (bs blobSuite) walkStops(t *testing.T) {
	s := bs.newStore(t)
	for _, k := range []string{"u/user-1/a.png", "u/user-1/b.png", "u/user-1/c.png"} {
		bs.put(t, s, k, "image/png", bs.png)
	}
	stop := errors.New("enough")
	calls := 0
	err := s.Walk(ctx, "", func(key string, size int64) error {
		calls++
		if got, info := bs.read(t, s, key); int64(len(got)) != size || info.Size != size {
			t.Errorf("%s: walked %d bytes, read %d", key, size, len(got))
		}
		bs.put(t, s, "u/user-2/new.png", "image/png", bs.png) // a write during the walk neither blocks nor breaks it
		return stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Fatalf("walk returned %v after %d calls", err, calls)
	}
}

func (bs blobSuite) escapingKeys(t *testing.T) {
	s := bs.newStore(t)
	for _, key := range []string{"", "../x.png", "u/../../etc/passwd", "/abs.png", "u//x.png", "u/./x.png",
		"u/.hidden", `u\x.png`, "u/x.png/", "u/x y.png", "u/%2e%2e/x", strings.Repeat("a", images.MaxBlobKey+1)} {
		wantKind(t, s.Put(ctx, key, "image/png", bytes.NewReader(bs.png), int64(len(bs.png))), core.KindInvalid)
		_, _, err := s.Open(ctx, key)
		wantKind(t, err, core.KindInvalid)
		wantKind(t, s.Delete(ctx, key), core.KindInvalid)
	}
}

func (bs blobSuite) concurrentPuts(t *testing.T) {
	s := bs.newStore(t)
	bodies := [][]byte{bytes.Repeat([]byte("a"), 50_000), bytes.Repeat([]byte("b"), 70_000)}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := bodies[i%2]
			if err := s.Put(ctx, "u/user-1/race.png", "image/png", bytes.NewReader(b), int64(len(b))); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	got, info := bs.read(t, s, "u/user-1/race.png")
	if !bytes.Equal(got, bodies[0]) && !bytes.Equal(got, bodies[1]) || info.Size != int64(len(got)) {
		t.Fatalf("mixed file of %d bytes", len(got))
	}
}
