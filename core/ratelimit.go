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
	// Hit counts one event and refuses it once the limit is passed.
	Hit(ctx context.Context, r RateRule, subject, code string) error
	// Check refuses when the limit is already reached, without counting.
	Check(ctx context.Context, r RateRule, subject, code string) error
	// Fail counts one failure (paired with Check).
	Fail(ctx context.Context, r RateRule, subject string) error
	// Reset forgets the subject's counted events under r.
	Reset(ctx context.Context, r RateRule, subject string) error
}
