package idempotency_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"tandem/adapters/memory"
	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/idempotency"
	"tandem/modules/throttle"
)

func TestValidKey(t *testing.T) {
	t.Parallel()
	cases := []struct {
		key string
		ok  bool
	}{
		{"k", true},
		{strings.Repeat("k", 255), true},
		{"0b9f6c2e-5d1a-4f7e-9a43-1c2d3e4f5a6b", true},
		{" ~!", true},
		{"", false},
		{strings.Repeat("k", 256), false},
		{"tab\t", false},
		{"del\x7f", false},
		{"caf\u00e9", false},
	}
	for _, tc := range cases {
		if err := idempotency.ValidKey(tc.key); (err == nil) != tc.ok || !tc.ok && !core.IsKind(err, core.KindInvalid) {
			t.Errorf("ValidKey(%q) = %v, want ok=%v", tc.key, err, tc.ok)
		}
	}
}

// run is one request through the service: Begin, then the handler's answer.
type run struct {
	fp     string
	answer idempotency.Answer
}

func TestBeginAndFinish(t *testing.T) {
	t.Parallel()
	ok := idempotency.Answer{Status: 200, ContentType: "application/json", Body: []byte(`{"id":"1"}`)}
	refused := idempotency.Answer{Status: 400, ContentType: "application/json", Body: []byte(`{"success":false}`)}
	failed := idempotency.Answer{Status: 503, ContentType: "application/json", Body: []byte(`{"success":false}`)}
	limited := idempotency.Answer{Status: 429, ContentType: "application/json", Body: []byte(`{"success":false}`)}
	huge := idempotency.Answer{Status: 200, ContentType: "application/json", Body: make([]byte, idempotency.MaxAnswerBytes+1)}
	cases := []struct {
		name     string
		first    run
		wait     time.Duration
		retry    string // its fingerprint
		wantRun  bool   // the retry runs (claims the key)
		wantCode string // or is refused with this code
		wantSame bool   // or gets the first answer
	}{
		{name: "a success is replayed", first: run{"a", ok}, retry: "a", wantSame: true},
		{name: "a refusal (4xx) is replayed", first: run{"a", refused}, retry: "a", wantSame: true},
		{name: "another body is 422", first: run{"a", ok}, retry: "b", wantCode: idempotency.CodeKeyReused},
		{name: "a 5xx is released: the retry runs", first: run{"a", failed}, retry: "a", wantRun: true},
		{name: "a 429 is released: the retry runs", first: run{"a", limited}, retry: "a", wantRun: true},
		{name: "an answer too large is not kept", first: run{"a", huge}, retry: "a", wantCode: idempotency.CodeNotKept},
		{name: "just before 24 hours it is replayed", first: run{"a", ok}, wait: idempotency.TTL - time.Millisecond, retry: "a", wantSame: true},
		{name: "after 24 hours the retry runs", first: run{"a", ok}, wait: idempotency.TTL, retry: "a", wantRun: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			clock := coretest.NewClock(time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC))
			svc := idempotency.NewService(memory.NewIdempotencyRepo(), limiter(clock), clock, &coretest.SeqIDs{}, idempotency.Settings{Lease: time.Minute})
			c, replay, err := svc.Begin(ctx, "u1", "key", func() (string, error) { return tc.first.fp, nil })
			if err != nil || c == nil || replay != nil {
				t.Fatalf("first: claim=%v replay=%v err=%v", c, replay, err)
			}
			if err := svc.Finish(ctx, c, tc.first.fp, tc.first.answer); err != nil {
				t.Fatal(err)
			}
			clock.Advance(tc.wait)
			c2, replay, err := svc.Begin(ctx, "u1", "key", func() (string, error) { return tc.retry, nil })
			switch {
			case tc.wantRun:
				if err != nil || c2 == nil {
					t.Fatalf("retry did not run: replay=%v err=%v", replay, err)
				}
			case tc.wantCode != "":
				if core.As(err).Code != tc.wantCode {
					t.Fatalf("retry: err=%v, want %s", err, tc.wantCode)
				}
			case tc.wantSame:
				if err != nil || replay == nil || replay.Status != tc.first.answer.Status || string(replay.Body) != string(tc.first.answer.Body) {
					t.Fatalf("retry: replay=%+v err=%v", replay, err)
				}
			}
		})
	}
}

func TestARunningKeyIsInProgressUntilItsLeaseEnds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := coretest.NewClock(time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC))
	svc := idempotency.NewService(memory.NewIdempotencyRepo(), limiter(clock), clock, &coretest.SeqIDs{}, idempotency.Settings{Lease: time.Minute})
	fp := func() (string, error) { return "a", nil }
	first, _, err := svc.Begin(ctx, "u1", "key", fp)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.Begin(ctx, "u1", "key", fp); core.As(err).Code != idempotency.CodeInProgress || !core.IsKind(err, core.KindConflict) {
		t.Fatalf("while running: %v", err)
	}
	if c, _, err := svc.Begin(ctx, "u2", "key", fp); err != nil || c == nil {
		t.Fatalf("another user's key: %v", err)
	}
	// The first request's process died: after the lease the key runs again,
	// and the late first one cannot overwrite the new claim.
	clock.Advance(time.Minute)
	second, _, err := svc.Begin(ctx, "u1", "key", fp)
	if err != nil || second == nil {
		t.Fatalf("after the lease: %v", err)
	}
	if err := svc.Finish(ctx, first, "a", idempotency.Answer{Status: 200}); !core.IsKind(err, core.KindNotFound) {
		t.Fatalf("late finish of a lost claim: %v", err)
	}
	if err := svc.Finish(ctx, second, "a", idempotency.Answer{Status: 201, Body: []byte("x")}); err != nil {
		t.Fatal(err)
	}
	if _, replay, err := svc.Begin(ctx, "u1", "key", fp); err != nil || replay == nil || replay.Status != 201 {
		t.Fatalf("replay of the second: %+v %v", replay, err)
	}
}

func TestAccountDeletionForgetsTheKeys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := coretest.NewClock(time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC))
	svc := idempotency.NewService(memory.NewIdempotencyRepo(), limiter(clock), clock, &coretest.SeqIDs{}, idempotency.Settings{Lease: time.Minute})
	fp := func() (string, error) { return "a", nil }
	c, _, _ := svc.Begin(ctx, "u1", "key", fp)
	if err := svc.Finish(ctx, c, "a", idempotency.Answer{Status: 200}); err != nil {
		t.Fatal(err)
	}
	if err := svc.Listener().Handle(ctx, core.AccountDeleted{UserID: "u1"}); err != nil {
		t.Fatal(err)
	}
	if c, _, err := svc.Begin(ctx, "u1", "key", fp); err != nil || c == nil {
		t.Fatalf("key kept after the account's deletion: %v", err)
	}
}

// limiter is the real limiter over memory counters, on clock.
func limiter(clock core.Clock) core.Limiter {
	return throttle.NewLimiter(memory.NewThrottleRepo(), clock)
}

// TestNewKeysSpendTheBudget: a new key spends one of the user's budget of
// keys; beyond it the request is refused (429 rate_limited, Retry-After)
// and its claim released, so nothing is stored; a key already stored is
// replayed, or refused as before, whatever the budget; another user's
// budget is their own.
func TestNewKeysSpendTheBudget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := coretest.NewClock(time.Date(2025, 6, 15, 12, 0, 10, 0, time.UTC))
	svc := idempotency.NewService(memory.NewIdempotencyRepo(), limiter(clock), clock, &coretest.SeqIDs{},
		idempotency.Settings{Lease: time.Hour, Budget: coretest.SmallBudget("idempotency_keys")})
	ok := idempotency.Answer{Status: 200, ContentType: "application/json", Body: []byte(`{"id":"1"}`)}
	fp := func(s string) func() (string, error) { return func() (string, error) { return s, nil } }
	done := func(user, key string) {
		t.Helper()
		c, replay, err := svc.Begin(ctx, user, key, fp("a"))
		if err != nil || c == nil || replay != nil {
			t.Fatalf("%s %s: claim=%v replay=%v err=%v", user, key, c, replay, err)
		}
		if err := svc.Finish(ctx, c, "a", ok); err != nil {
			t.Fatal(err)
		}
	}
	refused := func(user, key string, retryAfter time.Duration) {
		t.Helper()
		c, replay, err := svc.Begin(ctx, user, key, fp("a"))
		if e := core.As(err); c != nil || replay != nil || e.Kind != core.KindRateLimited || e.Code != "rate_limited" ||
			e.RetryAfter != retryAfter {
			t.Fatalf("%s %s: claim=%v replay=%v err=%v, want 429 after %s", user, key, c, replay, err, retryAfter)
		}
	}
	for _, k := range []string{"k1", "k2", "k3"} {
		done("u1", k)
	}
	refused("u1", "k4", 50*time.Second)
	// Stored keys answer as before: the replay, and 422 for another body.
	if c, replay, err := svc.Begin(ctx, "u1", "k1", fp("a")); err != nil || c != nil || replay == nil || replay.Status != 200 {
		t.Fatalf("replay past the budget: claim=%v replay=%+v err=%v", c, replay, err)
	}
	if _, _, err := svc.Begin(ctx, "u1", "k1", fp("b")); core.As(err).Code != idempotency.CodeKeyReused {
		t.Fatalf("another body past the budget: %v", err)
	}
	done("u2", "k4")
	// The next minute: k4 was never stored (its lease is an hour), so it
	// runs; the day's fifth key passes and the sixth waits for the next day.
	clock.Advance(time.Minute)
	done("u1", "k4")
	done("u1", "k5")
	refused("u1", "k6", 11*time.Hour+58*time.Minute+50*time.Second)
	clock.Advance(12 * time.Hour)
	done("u1", "k6")
}
