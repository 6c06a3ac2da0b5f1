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
