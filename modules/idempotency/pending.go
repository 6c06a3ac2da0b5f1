package idempotency

import (
	"context"
	"sync/atomic"
	"time"
)

// Committed ("written": the column holds 8 characters): the create of a
// running claim committed, its answer not yet stored (the process may have died, or lost its database, right after the
// commit). A retry is never run again: it is 409 idempotency_answer_not_kept.
const Committed State = "written"

// Pending is a claimed key riding on the request's context to the store, so
// that the create and the key's mark commit together: a store with
// transactions marks the claim Committed (MarkCommitted) inside the
// transaction of the request's first write, and refuses that write when the
// claim is gone (released after a timeout, or taken over after its lease):
// after any fault a retry finds the create's answer, or its mark, or
// nothing written.
type Pending struct {
	UserID, KeyHash, ClaimID string
	// KeepUntil is how long a committed key is kept (never claimed again
	// before), as a stored answer would be.
	KeepUntil time.Time
	marked    atomic.Bool
}

// Marked says whether a write of the request has committed the mark.
func (p *Pending) Marked() bool { return p.marked.Load() }

// MarkCommitted records that the transaction holding the mark committed:
// the request's later writes (a notification after the create) leave the
// key alone.
func (p *Pending) MarkCommitted() { p.marked.Store(true) }

type pendingKey struct{}

// WithPending is ctx carrying p to the store.
func WithPending(ctx context.Context, p *Pending) context.Context {
	return context.WithValue(ctx, pendingKey{}, p)
}

// PendingFrom is the claim a write of ctx must mark: nil when there is
// none, or when it is marked already.
func PendingFrom(ctx context.Context) *Pending {
	p, _ := ctx.Value(pendingKey{}).(*Pending)
	if p == nil || p.Marked() {
		return nil
	}
	return p
}

// Unmarked is ctx for a write that is no part of the create (a rate
// counter counted before it): it never marks the key.
func Unmarked(ctx context.Context) context.Context {
	return context.WithValue(ctx, pendingKey{}, (*Pending)(nil))
}
