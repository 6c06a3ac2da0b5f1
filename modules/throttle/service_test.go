package throttle_test

import (
	"context"
	"testing"
	"time"

	"tandem/adapters/memory"
	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/throttle"
)

func TestLimiterRules(t *testing.T) {
	ctx := context.Background()
	rule := core.RateRule{Name: "login_fail", Limit: 3, Window: 15 * time.Minute}
	clock := coretest.NewClock(time.Date(2025, 6, 15, 12, 5, 0, 0, time.UTC))
	l := throttle.NewLimiter(memory.NewThrottleRepo(), clock)

	t.Run("hit allows the limit then refuses with Retry-After to the window end", func(t *testing.T) {
		for i := 0; i < 3; i++ {
			if err := l.Hit(ctx, rule, "ip-1", "rate_limited"); err != nil {
				t.Fatalf("hit %d: %v", i, err)
			}
		}
		err := l.Hit(ctx, rule, "ip-1", "rate_limited")
		e := core.As(err)
		if e.Kind != core.KindRateLimited || e.Code != "rate_limited" || e.RetryAfter != 10*time.Minute {
			t.Fatalf("got %+v", e)
		}
		if err := l.Hit(ctx, rule, "ip-2", "rate_limited"); err != nil {
			t.Fatal("subjects must not share a counter")
		}
	})
	t.Run("undo gives a reserved attempt back", func(t *testing.T) {
		for i := 0; i < 3; i++ {
			if err := l.Hit(ctx, rule, "a@x", "rate_limited"); err != nil {
				t.Fatal(err)
			}
		}
		if err := l.Undo(ctx, rule, "a@x"); err != nil {
			t.Fatal(err)
		}
		if err := l.Hit(ctx, rule, "a@x", "rate_limited"); err != nil {
			t.Fatalf("after undo one more must pass: %v", err)
		}
		if err := l.Hit(ctx, rule, "a@x", "rate_limited"); !core.IsKind(err, core.KindRateLimited) {
			t.Fatalf("want refusal, got %v", err)
		}
	})
	t.Run("a new window starts afresh", func(t *testing.T) {
		clock.Advance(15 * time.Minute)
		if err := l.Hit(ctx, rule, "a@x", "rate_limited"); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("reset forgets", func(t *testing.T) {
		for i := 0; i < 3; i++ {
			_ = l.Hit(ctx, rule, "b@x", "rate_limited")
		}
		_ = l.Reset(ctx, rule, "b@x")
		if err := l.Hit(ctx, rule, "b@x", "rate_limited"); err != nil {
			t.Fatal(err)
		}
	})
}
