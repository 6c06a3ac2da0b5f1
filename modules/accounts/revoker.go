package accounts

import (
	"context"
	"errors"
	"time"

	"tandem/core"
)

const (
	// RevokeRetryFirst is the wait after a revocation's first failure; each
	// further failure doubles it, up to RevokeRetryMax. A revocation is
	// never given up for want of an answer: the grant stays live at the
	// provider until it is revoked.
	RevokeRetryFirst = 30 * time.Second
	RevokeRetryMax   = time.Hour
	// revokeTimeout bounds one call to the provider; a claim's lease is
	// twice it.
	revokeTimeout = 30 * time.Second
	revokeBatch   = 20
)

// RevokeRetryAt is when a revocation that failed for the attempts-th time
// at now is tried again.
func RevokeRetryAt(attempts int, now time.Time) time.Time {
	wait := RevokeRetryFirst
	for i := 1; i < attempts && wait < RevokeRetryMax; i++ {
		wait *= 2
	}
	return now.Add(min(wait, RevokeRetryMax))
}

// RevocationLog hears what became of queued revocations (bootstrap logs
// it). It never gets the grant, sealed or not.
type RevocationLog interface {
	Revoked(ctx context.Context, r Revocation)
	// RevokeFailed: tried again at next.
	RevokeFailed(ctx context.Context, r Revocation, err error, next time.Time)
	// RevokeDropped: never to be revoked, for reason (the provider says
	// the grant is dead already).
	RevokeDropped(ctx context.Context, r Revocation, reason string)
}

// Revoker empties the Revocations queue through ProviderGrants, off every
// request, as the Sender empties the mail Outbox: woken after each commit
// that queued a grant, and run periodically by bootstrap (retries, other
// processes' queue, what a restart left). Each revocation is claimed alone
// for twice the call's timeout, so several processes revoke each grant
// once (twice at worst, which the provider takes). A failure is retried
// with backoff (RevokeRetryAt) and ends the pass: the provider is likely
// down. Without ProviderGrants (Apple's key not configured) the queue waits.
type Revoker struct {
	queue  Revocations
	grants ProviderGrants
	sealer Sealer
	log    RevocationLog
	clock  core.Clock
	ids    core.IDs
	wake   chan struct{}
}

// NewRevoker is a plain constructor; grants and sealer may be nil (the
// queue then waits).
func NewRevoker(queue Revocations, grants ProviderGrants, sealer Sealer, log RevocationLog, clock core.Clock, ids core.IDs) *Revoker {
	return &Revoker{queue: queue, grants: grants, sealer: sealer, log: log, clock: clock, ids: ids, wake: make(chan struct{}, 1)}
}

// Wake asks for a pass at once; it never blocks.
func (r *Revoker) Wake() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Woken is where the loop running RevokeDue hears Wake.
func (r *Revoker) Woken() <-chan struct{} { return r.wake }

// RevokeDue runs one pass: every due revocation until one fails. It
// returns how many it revoked; an error is the queue's.
func (r *Revoker) RevokeDue(ctx context.Context) (int, error) {
	if r.grants == nil || r.sealer == nil {
		return 0, nil
	}
	done := 0
	for {
		due, err := r.queue.DueRevocations(ctx, r.clock.Now(), revokeBatch)
		if err != nil {
			return done, err
		}
		for _, rv := range due {
			ok, goOn, err := r.revoke(ctx, rv)
			if ok {
				done++
			}
			if err != nil || !goOn {
				return done, err
			}
		}
		if len(due) < revokeBatch {
			return done, nil
		}
	}
}

// revoke claims and revokes one grant. goOn is false when the pass should
// end (the provider failed, or the pass is cancelled).
func (r *Revoker) revoke(ctx context.Context, rv Revocation) (revoked, goOn bool, err error) {
	now := r.clock.Now()
	claim := r.ids.New()
	ok, err := r.queue.ClaimRevocation(ctx, rv.ID, claim, now, now.Add(2*revokeTimeout))
	if err != nil || !ok {
		return false, err == nil, err
	}
	var callErr error
	g, openErr := openGrant(r.sealer, rv)
	if openErr == nil {
		callCtx, cancel := context.WithTimeout(ctx, revokeTimeout)
		callErr = r.grants.Revoke(callCtx, rv.Provider, g.Client, g.Token)
		cancel()
	} else {
		// A key taken out of TANDEM_ENCRYPTION_KEY too soon: kept, and
		// tried again, until the key is listed again.
		callErr = openErr
	}
	bctx, finish := context.WithTimeout(context.WithoutCancel(ctx), mailBookkeeping)
	defer finish()
	switch {
	case callErr == nil:
		r.log.Revoked(ctx, rv)
		return true, true, r.queue.ForgetRevocation(bctx, rv.ID, claim)
	case ctx.Err() != nil:
		return false, false, r.queue.RetryRevocation(bctx, rv.ID, claim, rv.Attempts, rv.NextAttemptAt)
	case openErr == nil && errors.Is(callErr, ErrGrantGone):
		r.log.RevokeDropped(ctx, rv, "the provider says the grant is no longer valid: "+callErr.Error())
		return false, true, r.queue.ForgetRevocation(bctx, rv.ID, claim)
	}
	rv.Attempts++
	next := RevokeRetryAt(rv.Attempts, r.clock.Now())
	r.log.RevokeFailed(ctx, rv, callErr, next)
	return false, false, r.queue.RetryRevocation(bctx, rv.ID, claim, rv.Attempts, next)
}
