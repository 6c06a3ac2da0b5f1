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
