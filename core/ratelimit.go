package core

import (
	"context"
	"time"
)

// RateRule is one limit: at most Limit events per Window for one subject.
type RateRule struct {
	Name   string // stable: part of the stored counter key
	Limit  int
	Window time.Duration
}

// Limiter is the port for security counters shared by every process
// (implemented by modules/throttle over the database). Refusals are
// KindRateLimited errors carrying the given code and a Retry-After.
type Limiter interface {
	// Hit counts one event atomically (one upsert that returns the new
	// count) and refuses it once the limit is passed. Attempt-based flows
	// reserve the attempt with Hit before doing the work, so a crowd of
	// concurrent attempts can never pass the limit.
	Hit(ctx context.Context, r RateRule, subject, code string) error
	// Undo gives back one event counted by Hit in the current window (never
	// below zero): a reserved attempt that turned out to succeed.
	Undo(ctx context.Context, r RateRule, subject string) error
	// Reset forgets the subject's counted events under r.
	Reset(ctx context.Context, r RateRule, subject string) error
}

// WriteBudget bounds how many writes of one kind (messages sent, events
// created...) one user makes: a burst-friendly limit per minute and a cap
// per day, each a fixed window of the shared counters (the clock's minute;
// the UTC day). A couple using the app never meets either; a script does,
// within a minute, and the day's cap bounds what it can store.
type WriteBudget struct {
	Kind      string // stable: names the stored counters (Kind_user_minute, Kind_user_day)
	PerMinute int
	PerDay    int
}

// Rules are the budget's two rate rules.
func (b WriteBudget) Rules() (perMinute, perDay RateRule) {
	return RateRule{Name: b.Kind + "_user_minute", Limit: b.PerMinute, Window: time.Minute},
		RateRule{Name: b.Kind + "_user_day", Limit: b.PerDay, Window: 24 * time.Hour}
}

// Or is b, or def where b sets no limits (a zero value: the default).
func (b WriteBudget) Or(def WriteBudget) WriteBudget {
	if b.PerMinute <= 0 || b.PerDay <= 0 {
		return def
	}
	if b.Kind == "" {
		b.Kind = def.Kind
	}
	return b
}

// Spend counts one write of userID against b before it is made: 429
// rate_limited with a Retry-After to the end of the window once the
// minute's limit or the day's cap is passed. A write the minute refuses is
// not counted in the day, so a script hammering a closed minute does not
// spend the day.
func (b WriteBudget) Spend(ctx context.Context, l Limiter, userID string) error {
	perMinute, perDay := b.Rules()
	if err := l.Hit(ctx, perMinute, userID, "rate_limited"); err != nil {
		return err
	}
	return l.Hit(ctx, perDay, userID, "rate_limited")
}
