package images_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"tandem/adapters/blob/memblob"
	"tandem/adapters/memory"
	"tandem/core/coretest"
	"tandem/modules/images"
)

// Only a file found without a row by two sweeps a grace apart goes; a file
// with its row, a key that is not an image's, and a fresh orphan stay.
func TestSweeperRemovesOnlyOrphansOlderThanTheGrace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo, blobs := memory.NewImageRepo(), memblob.New()
	clock := coretest.NewClock(time.Time{})
	put := func(key string) {
		if err := blobs.Put(ctx, key, "image/png", bytes.NewReader([]byte("x")), 1); err != nil {
			t.Fatal(err)
		}
	}
	png := images.Format{Ext: "png", ContentType: "image/png"}
	held, orphan := images.NewKey("u1", png), images.NewKey("u1", png)
	put(held)
	put(orphan)
	if err := repo.Create(ctx, []images.Image{{ID: "i1", UserID: "u1", Key: held, CreatedAt: clock.Now()}}, nil); err != nil {
		t.Fatal(err)
	}
	s := images.NewSweeper(repo, blobs, clock, time.Hour)
	exists := func(key string) bool {
		rc, _, err := blobs.Open(ctx, key)
		if err == nil {
			rc.Close()
		}
		return err == nil
	}
	sweep := func(want int) {
		t.Helper()
		if n, err := s.Sweep(ctx); err != nil || n != want {
			t.Fatalf("swept %d, %v; want %d", n, err, want)
		}
	}
	sweep(0) // first seen now
	clock.Advance(59 * time.Minute)
	sweep(0) // not a grace yet
	late := images.NewKey("u1", png)
	put(late) // an upload in flight: its row comes in a moment
	clock.Advance(time.Minute)
	sweep(1)
	if exists(orphan) || !exists(held) || !exists(late) {
		t.Fatalf("after the grace: orphan %v held %v late %v", exists(orphan), exists(held), exists(late))
	}
	if err := repo.Create(ctx, []images.Image{{ID: "i2", UserID: "u1", Key: late, CreatedAt: clock.Now()}}, nil); err != nil {
		t.Fatal(err)
	}
	clock.Advance(2 * time.Hour)
	sweep(0) // its row came: it stays
	if !exists(late) {
		t.Fatal("a file whose row came late was removed")
	}
}

// countingRepo counts the sweep's reads of the image rows.
type countingRepo struct {
	images.Repository
	held, byKey int
}

func (r *countingRepo) Held(ctx context.Context, keys []string) (map[string]bool, error) {
	r.held++
	return r.Repository.Held(ctx, keys)
}

func (r *countingRepo) ByKey(ctx context.Context, key string) (images.Image, error) {
	r.byKey++
	return r.Repository.ByKey(ctx, key)
}

// The sweep reads the image rows once per SweepPage files, not once per
// file (issue 36), and still tells held files and their thumbnails from
// orphans across page boundaries.
func TestSweeperChecksFilesAPageAtATime(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	mem, blobs := memory.NewImageRepo(), memblob.New()
	repo := &countingRepo{Repository: mem}
	clock := coretest.NewClock(time.Time{})
	png := images.Format{Ext: "png", ContentType: "image/png"}
	files := 2*images.SweepPage + 7
	var kept []images.Image
	for i := range files {
		key := images.NewKey("u1", png)
		if err := blobs.Put(ctx, key, "image/png", bytes.NewReader([]byte("x")), 1); err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			kept = append(kept, images.Image{ID: key, UserID: "u1", Key: key, CreatedAt: clock.Now()})
		}
	}
	if err := mem.Create(ctx, kept, nil); err != nil {
		t.Fatal(err)
	}
	s := images.NewSweeper(repo, blobs, clock, time.Hour)
	if n, err := s.Sweep(ctx); err != nil || n != 0 {
		t.Fatalf("first sweep: %d, %v", n, err)
	}
	clock.Advance(time.Hour)
	if n, err := s.Sweep(ctx); err != nil || n != files-len(kept) {
		t.Fatalf("second sweep: %d, %v; want %d", n, err, files-len(kept))
	}
	if repo.byKey != 0 || repo.held != 6 { // three pages a sweep
		t.Fatalf("reads: %d by key, %d pages; want 0 and 6", repo.byKey, repo.held)
	}
	for _, img := range kept {
		if rc, _, err := blobs.Open(ctx, img.Key); err != nil {
			t.Fatalf("held file %s: %v", img.Key, err)
		} else {
			rc.Close()
		}
	}
}
