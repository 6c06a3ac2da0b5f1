// Package storetest holds one contract suite per repository port; each suite
// runs against the memory, SQLite and MySQL implementations.
package storetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"tandem/modules/throttle"
)

// ThrottleRepository checks a throttle.Repository implementation.
func ThrottleRepository(t *testing.T, newRepo func(t *testing.T) throttle.Repository) {
	ctx := context.Background()
	w1 := time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)
	w2 := w1.Add(time.Minute)

	t.Run("counts per key and window", func(t *testing.T) {
		r := newRepo(t)
		for i := 1; i <= 3; i++ {
			n, err := r.Add(ctx, "a", w1, w2)
			if err != nil || n != i {
				t.Fatalf("add %d: n=%d err=%v", i, n, err)
			}
		}
		mustCount(t, r, "a", w1, 3)
		mustCount(t, r, "a", w2, 0)
		mustCount(t, r, "b", w1, 0)
	})

	t.Run("sub gives one back, never below zero", func(t *testing.T) {
		r := newRepo(t)
		mustAdd(t, r, "a", w1, w2)
		mustAdd(t, r, "a", w1, w2)
		for range 3 {
			if err := r.Sub(ctx, "a", w1); err != nil {
				t.Fatal(err)
			}
		}
		mustCount(t, r, "a", w1, 0)
		if err := r.Sub(ctx, "absent", w1); err != nil {
			t.Fatal(err)
		}
		if n, err := r.Add(ctx, "a", w1, w2); err != nil || n != 1 {
			t.Fatalf("add after sub: n=%d err=%v", n, err)
		}
	})

	t.Run("clear forgets every window of a key", func(t *testing.T) {
		r := newRepo(t)
		mustAdd(t, r, "a", w1, w2)
		mustAdd(t, r, "a", w2, w2.Add(time.Minute))
		mustAdd(t, r, "b", w1, w2)
		if err := r.Clear(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		mustCount(t, r, "a", w1, 0)
		mustCount(t, r, "a", w2, 0)
		mustCount(t, r, "b", w1, 1)
	})

	t.Run("purge drops expired counters only", func(t *testing.T) {
		r := newRepo(t)
		mustAdd(t, r, "old", w1, w2)
		mustAdd(t, r, "new", w2, w2.Add(time.Hour))
		n, err := r.Purge(ctx, w2.Add(time.Second))
		if err != nil || n != 1 {
			t.Fatalf("purge n=%d err=%v", n, err)
		}
		mustCount(t, r, "old", w1, 0)
		mustCount(t, r, "new", w2, 1)
	})

	t.Run("concurrent adds are never lost", func(t *testing.T) {
		r := newRepo(t)
		const workers, each = 8, 10
		var wg sync.WaitGroup
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range each {
					if _, err := r.Add(ctx, "hot", w1, w2); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		mustCount(t, r, "hot", w1, workers*each)
	})
}

func mustAdd(t *testing.T, r throttle.Repository, key string, w, exp time.Time) {
	t.Helper()
	if _, err := r.Add(context.Background(), key, w, exp); err != nil {
		t.Fatal(err)
	}
}

func mustCount(t *testing.T, r throttle.Repository, key string, w time.Time, want int) {
	t.Helper()
	n, err := r.Count(context.Background(), key, w)
	if err != nil || n != want {
		t.Fatalf("count %s: n=%d err=%v, want %d", key, n, err, want)
	}
}
