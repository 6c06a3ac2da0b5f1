package storetest

import (
	"sync"
	"testing"
	"time"

	"tandem/modules/throttle"
)

// ThrottleRepository checks a throttle.Repository implementation.
func ThrottleRepository(t *testing.T, newRepo func(t *testing.T) throttle.Repository) {
	th := throttleSuite{newRepo: newRepo, w1: now, w2: now.Add(time.Minute)}
	t.Run("counts per key and window", th.counts)
	t.Run("sub gives one back, never below zero", th.sub)
	t.Run("clear forgets every window of a key", th.clear)
	t.Run("purge drops expired counters only", th.purge)
	t.Run("concurrent adds are never lost", th.concurrentAdds)
}

// throttleSuite holds ThrottleRepository's helpers and subtests.
type throttleSuite struct {
	newRepo func(t *testing.T) throttle.Repository
	w1, w2  time.Time // two windows a minute apart; w2 is also w1's expiry
}

func (throttleSuite) add(t *testing.T, r throttle.Repository, key string, w, exp time.Time) {
	t.Helper()
	if _, err := r.Add(ctx, key, w, exp); err != nil {
		t.Fatal(err)
	}
}

func (throttleSuite) count(t *testing.T, r throttle.Repository, key string, w time.Time, want int) {
	t.Helper()
	n, err := r.Count(ctx, key, w)
	if err != nil || n != want {
		t.Fatalf("count %s: n=%d err=%v, want %d", key, n, err, want)
	}
}

func (th throttleSuite) counts(t *testing.T) {
	r := th.newRepo(t)
	for i := 1; i <= 3; i++ {
		n, err := r.Add(ctx, "a", th.w1, th.w2)
		if err != nil || n != i {
			t.Fatalf("add %d: n=%d err=%v", i, n, err)
		}
	}
	th.count(t, r, "a", th.w1, 3)
	th.count(t, r, "a", th.w2, 0)
	th.count(t, r, "b", th.w1, 0)
}

func (th throttleSuite) sub(t *testing.T) {
	r := th.newRepo(t)
	th.add(t, r, "a", th.w1, th.w2)
	th.add(t, r, "a", th.w1, th.w2)
	for range 3 {
		if err := r.Sub(ctx, "a", th.w1); err != nil {
			t.Fatal(err)
		}
	}
	th.count(t, r, "a", th.w1, 0)
	if err := r.Sub(ctx, "absent", th.w1); err != nil {
		t.Fatal(err)
	}
	if n, err := r.Add(ctx, "a", th.w1, th.w2); err != nil || n != 1 {
		t.Fatalf("add after sub: n=%d err=%v", n, err)
	}
}

func (th throttleSuite) clear(t *testing.T) {
	r := th.newRepo(t)
	th.add(t, r, "a", th.w1, th.w2)
	th.add(t, r, "a", th.w2, th.w2.Add(time.Minute))
	th.add(t, r, "b", th.w1, th.w2)
	if err := r.Clear(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	th.count(t, r, "a", th.w1, 0)
	th.count(t, r, "a", th.w2, 0)
	th.count(t, r, "b", th.w1, 1)
}

func (th throttleSuite) purge(t *testing.T) {
	r := th.newRepo(t)
	th.add(t, r, "old", th.w1, th.w2)
	th.add(t, r, "new", th.w2, th.w2.Add(time.Hour))
	n, err := r.Purge(ctx, th.w2.Add(time.Second))
	if err != nil || n != 1 {
		t.Fatalf("purge n=%d err=%v", n, err)
	}
	th.count(t, r, "old", th.w1, 0)
	th.count(t, r, "new", th.w2, 1)
}

func (th throttleSuite) concurrentAdds(t *testing.T) {
	r := th.newRepo(t)
	const workers, each = 8, 10
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				if _, err := r.Add(ctx, "hot", th.w1, th.w2); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	th.count(t, r, "hot", th.w1, workers*each)
}
