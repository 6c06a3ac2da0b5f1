package images_test

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tandem/adapters/blob/memblob"
	"tandem/adapters/memory"
	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/images"
)

// slowImages renders thumbnails slowly and counts them, so concurrent first
// requests overlap.
type slowImages struct {
	rawImages
	renders atomic.Int32
}

func (s *slowImages) Thumbnail(ctx context.Context, r io.Reader, format images.Format, width int) (images.Processed, error) {
	s.renders.Add(1)
	time.Sleep(50 * time.Millisecond)
	return s.rawImages.Thumbnail(ctx, r, format, width)
}

func newThumbFixture(t *testing.T) (*images.Service, *memblob.Store, *slowImages, *memory.ImageRepo) {
	t.Helper()
	repo, blobs, proc := memory.NewImageRepo(), memblob.New(), &slowImages{}
	svc := images.NewService(repo, blobs, proc, &orphans{}, &storageLimits{}, settings, coretest.NewClock(time.Time{}),
		&coretest.SeqIDs{}, nil)
	return svc, blobs, proc, repo
}

func read(t *testing.T, d images.Download) string {
	t.Helper()
	b, err := io.ReadAll(d.Body)
	d.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestThumbnailsAreMadeOnceAndStoredBesideTheFile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, blobs, proc, _ := newThumbFixture(t)
	up, err := svc.Upload(ctx, "user-1", []images.File{file(jpegBytes)}) // rawImages: 1000 px wide
	if err != nil {
		t.Fatal(err)
	}
	key := up.Images[0].Key

	var wg sync.WaitGroup
	bodies := make([]string, 20)
	for i := range bodies {
		wg.Go(func() {
			d, err := svc.File(ctx, key, 320)
			if err != nil {
				t.Error(err)
				return
			}
			bodies[i] = read(t, d)
		})
	}
	wg.Wait()
	want := "thumb-320:" + string(jpegBytes)
	for _, b := range bodies {
		if b != want {
			t.Fatalf("served %q", b)
		}
	}
	if n := proc.renders.Load(); n != 1 {
		t.Fatalf("20 first requests rendered %d times", n)
	}
	if _, _, err := blobs.Open(ctx, images.ThumbKey(key, 320)); err != nil {
		t.Fatalf("thumbnail not stored beside the file: %v", err)
	}
	d, _ := svc.File(ctx, key, 320)
	if read(t, d) != want || proc.renders.Load() != 1 || d.ETag != `"`+key[strings.LastIndexByte(key, '/')+1:len(key)-4]+`.w320.jpg"` {
		t.Fatalf("a stored thumbnail was rendered again, or its ETag %s is not its name", d.ETag)
	}

	// Never wider than the file: 1280 >= 1000 serves the file itself.
	d, _ = svc.File(ctx, key, 1280)
	if read(t, d) != string(jpegBytes) || proc.renders.Load() != 1 {
		t.Fatal("a thumbnail wider than the file")
	}
	for _, w := range []int{1, 100, 321, 5000, -320} {
		_, err := svc.File(ctx, key, w)
		coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
	}

	// Deleting the image deletes its thumbnails.
	if _, err := svc.Delete(ctx, "user-1", up.Images[0].ID); err != nil {
		t.Fatal(err)
	}
	if keys := blobs.Keys(); len(keys) != 0 {
		t.Fatalf("left behind %v", keys)
	}
	_, err = svc.File(ctx, key, 320)
	coretest.WantErr(t, err, core.KindNotFound, "not_found")
}

func TestSweepRemovesThumbnailsWithoutTheirImage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := coretest.NewClock(time.Time{})
	repo, blobs := memory.NewImageRepo(), memblob.New()
	svc := images.NewService(repo, blobs, rawImages{}, &orphans{}, &storageLimits{}, settings, clock, &coretest.SeqIDs{}, nil)
	up, err := svc.Upload(ctx, "user-1", []images.File{file(pngBytes)})
	if err != nil {
		t.Fatal(err)
	}
	kept := up.Images[0].Key
	if _, err := svc.File(ctx, kept, 160); err != nil {
		t.Fatal(err)
	}
	gone := "u/user-1/" + strings.Repeat("a", 32) + ".png" // its image row never came
	for _, k := range []string{images.ThumbKey(gone, 160), images.ThumbKey(gone, 1280)} {
		if err := blobs.Put(ctx, k, "image/png", bytes.NewReader(pngBytes), int64(len(pngBytes))); err != nil {
			t.Fatal(err)
		}
	}
	sweeper := images.NewSweeper(repo, blobs, clock, time.Hour)
	for range 2 {
		if _, err := sweeper.Sweep(ctx); err != nil {
			t.Fatal(err)
		}
		clock.Advance(2 * time.Hour)
	}
	keys := blobs.Keys()
	if strings.Join(keys, ",") != strings.Join([]string{kept, images.ThumbKey(kept, 160)}, ",") &&
		strings.Join(keys, ",") != strings.Join([]string{images.ThumbKey(kept, 160), kept}, ",") {
		t.Fatalf("after the sweeps: %v", keys)
	}
}

func TestParseThumbKey(t *testing.T) {
	t.Parallel()
	key := "u/user-1/" + strings.Repeat("0", 32) + ".jpg"
	for _, c := range []struct {
		in   string
		want string
		w    int
	}{
		{images.ThumbKey(key, 160), key, 160},
		{images.ThumbKey(key, 1280), key, 1280},
		{"u/user-1/" + strings.Repeat("0", 32) + ".w321.jpg", "", 0}, // not a served width
		{"u/user-1/" + strings.Repeat("0", 32) + ".w0320.jpg", "", 0},
		{"u/user-1/" + strings.Repeat("0", 32) + ".w+320.jpg", "", 0},
		{"u/user-1/" + strings.Repeat("0", 32) + ".w320.gif", "", 0},
		{"u/../" + strings.Repeat("0", 32) + ".w320.jpg", "", 0},
		{key, "", 0},
		{"", "", 0},
	} {
		got, w, ok := images.ParseThumbKey(c.in)
		if got != c.want || w != c.w || ok != (c.want != "") {
			t.Errorf("%q: %q %d %v", c.in, got, w, ok)
		}
	}
}
