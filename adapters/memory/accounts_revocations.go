package memory

import (
	"context"
	"time"

	"tandem/modules/accounts"
)

// The grants of the identities and the queue of those to revoke: an
// identity's removal moves its grant to the queue under the same mutex,
// as its SQL transaction does.

// retireGrantLocked takes id's grant away: queued for revocation, or, for
// keep, returned (it is linked again); "" when it held none or was queued.
func (r *AccountRepo) retireGrantLocked(id accounts.Identity, keep identityKey) string {
	k := identityKey{id.Provider, id.Subject}
	g, ok := r.grants[k]
	if !ok {
		return ""
	}
	delete(r.grants, k)
	if k == keep {
		return g
	}
	rv := accounts.RevocationOf(id.Provider, id.Subject, id.UserID, g)
	if !r.revocations.has(rv.ID) {
		r.revocations.put(rv.ID, rv)
	}
	return ""
}

func (r *AccountRepo) QueueRevocation(_ context.Context, rv accounts.Revocation) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.revocations.has(rv.ID) {
		rv.Claim, rv.ClaimedUntil = "", time.Time{}
		r.revocations.put(rv.ID, rv)
	}
	return nil
}

func (r *AccountRepo) DueRevocations(_ context.Context, now time.Time, limit int) ([]accounts.Revocation, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.revocations.due(now, limit), nil
}

func (r *AccountRepo) ClaimRevocation(_ context.Context, id, claim string, now, until time.Time) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.revocations.claim(id, claim, now, until), nil
}

func (r *AccountRepo) RetryRevocation(_ context.Context, id, claim string, attempts int, next time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.revocations.retry(id, claim, attempts, next)
	return nil
}

func (r *AccountRepo) ForgetRevocation(_ context.Context, id, claim string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.revocations.forget(id, claim)
	return nil
}

func (r *AccountRepo) PendingRevocations(context.Context) (int, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.revocations.len(), nil
}
