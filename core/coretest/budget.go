package coretest

import (
	"testing"
	"time"

	"tandem/core"
)

// SmallBudget is the write budget CheckWriteBudget drives: 3 writes a
// minute, 5 a day.
func SmallBudget(kind string) core.WriteBudget {
	return core.WriteBudget{Kind: kind, PerMinute: 3, PerDay: 5}
}

// CheckWriteBudget drives a service given SmallBudget (over the real
// limiter on clock) through its budget: write(user, n) makes user's n-th
// valid write, state(user) describes what is stored of user. The minute
// passes three writes and refuses the fourth (429 rate_limited, Retry-After
// to the minute's end) without changing what is stored; another user is not
// affected; the next minute passes two more and refuses the sixth until the
// end of the UTC day; the next day passes again.
func CheckWriteBudget(t *testing.T, clock *FixedClock, write func(user string, n int) error, state func(user string) string) {
	t.Helper()
	n := 0
	pass := func(user string) {
		t.Helper()
		n++
		if err := write(user, n); err != nil {
			t.Fatalf("write %d of %s refused: %v", n, user, err)
		}
	}
	refused := func(user string, window time.Duration) {
		t.Helper()
		before := state(user)
		n++
		err := write(user, n)
		now := clock.Now()
		want := now.Truncate(window).Add(window).Sub(now)
		if e := core.As(err); err == nil || e.Kind != core.KindRateLimited || e.Code != "rate_limited" || e.RetryAfter != want {
			t.Fatalf("write %d of %s: want 429 rate_limited with Retry-After %s, got %v (%+v)", n, user, want, err, e)
		}
		if after := state(user); after != before {
			t.Fatalf("a refused write changed what is stored:\nbefore %s\nafter  %s", before, after)
		}
	}
	clock.Set(clock.Now().Truncate(time.Minute).Add(10 * time.Second))
	for range 3 {
		pass("ann")
	}
	refused("ann", time.Minute)
	refused("ann", time.Minute) // a refusal does not count in the day
	pass("bob")
	clock.Advance(time.Minute)
	pass("ann")
	pass("ann")
	refused("ann", 24*time.Hour)
	clock.Set(clock.Now().Truncate(24 * time.Hour).Add(24*time.Hour + time.Second))
	pass("ann")
}
