package memory

import (
	"context"
	"slices"
	"strings"
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
	if _, waiting := r.revocations[rv.ID]; !waiting {
		r.revocations[rv.ID] = rv
	}
	return ""
}

func (r *AccountRepo) QueueRevocation(_ context.Context, rv accounts.Revocation) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, waiting := r.revocations[rv.ID]; !waiting {
		rv.Claim, rv.ClaimedUntil = "", time.Time{}
		r.revocations[rv.ID] = rv
	}
	return nil
}

func revocationDue(rv accounts.Revocation, now time.Time) bool {
	return !rv.NextAttemptAt.After(now) && rv.ClaimedUntil.Before(now)
}

func (r *AccountRepo) DueRevocations(_ context.Context, now time.Time, limit int) ([]accounts.Revocation, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []accounts.Revocation
	for _, rv := range r.revocations {
		if revocationDue(rv, now) {
			out = append(out, rv)
		}
	}
	slices.SortFunc(out, func(a, b accounts.Revocation) int {
		if c := a.NextAttemptAt.Compare(b.NextAttemptAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out[:min(limit, len(out))], nil
}

func (r *AccountRepo) ClaimRevocation(_ context.Context, id, claim string, now, until time.Time) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rv, ok := r.revocations[id]
	if !ok || !revocationDue(rv, now) {
		return false, nil
	}
	rv.Claim, rv.ClaimedUntil = claim, until
	r.revocations[id] = rv
	return true, nil
}

func (r *AccountRepo) RetryRevocation(_ context.Context, id, claim string, attempts int, next time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rv, ok := r.revocations[id]; ok && claim != "" && rv.Claim == claim {
		rv.Attempts, rv.NextAttemptAt, rv.Claim, rv.ClaimedUntil = attempts, next, "", time.Time{}
		r.revocations[id] = rv
	}
	return nil
}

func (r *AccountRepo) ForgetRevocation(_ context.Context, id, claim string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rv, ok := r.revocations[id]; ok && claim != "" && rv.Claim == claim {
		delete(r.revocations, id)
	}
	return nil
}

func (r *AccountRepo) PendingRevocations(context.Context) (int, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.revocations), nil
}
