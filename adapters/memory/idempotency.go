package memory

import (
	"context"
	"sync"
	"time"

	"tandem/modules/idempotency"
)

var _ idempotency.Repository = (*IdempotencyRepo)(nil)

type idemKey struct{ user, hash string }

// IdempotencyRepo keeps the keys in a table; answers are copied in and out.
type IdempotencyRepo struct {
	mu   sync.Mutex
	keys table[idemKey, idempotency.Record]
}

func NewIdempotencyRepo() *IdempotencyRepo {
	return &IdempotencyRepo{keys: newTable[idemKey, idempotency.Record](nil, notFound("memory.notFound", "not found")).cloned(cloneRecord)}
}

func cloneRecord(r idempotency.Record) idempotency.Record {
	if r.Answer.Body != nil {
		r.Answer.Body = append([]byte{}, r.Answer.Body...)
	}
	return r
}

func (r *IdempotencyRepo) Claim(_ context.Context, rec idempotency.Record, now time.Time) (idempotency.Record, bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := idemKey{rec.UserID, rec.KeyHash}
	if old, ok := r.keys.get(k); ok && old.ExpiresAt.After(now) {
		return old, false, nil
	}
	r.keys.put(k, rec)
	return idempotency.Record{}, true, nil
}

func (r *IdempotencyRepo) Finish(_ context.Context, rec idempotency.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := idemKey{rec.UserID, rec.KeyHash}
	if _, err := r.keys.findIf(k, func(old idempotency.Record) bool {
		return old.ClaimID == rec.ClaimID && old.State != idempotency.Done
	}); err != nil {
		return err
	}
	r.keys.put(k, rec)
	return nil
}

// running is the record of claimID while it runs.
func running(claimID string) func(idempotency.Record) bool {
	return func(old idempotency.Record) bool { return old.ClaimID == claimID && old.State == idempotency.Running }
}

func (r *IdempotencyRepo) Renew(_ context.Context, userID, keyHash, claimID string, expires time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := idemKey{userID, keyHash}
	if old, err := r.keys.findIf(k, running(claimID)); err == nil {
		old.ExpiresAt = expires
		r.keys.put(k, old)
	}
	return nil
}

func (r *IdempotencyRepo) Release(_ context.Context, userID, keyHash, claimID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := idemKey{userID, keyHash}
	if _, err := r.keys.findIf(k, running(claimID)); err == nil {
		r.keys.delete(k)
	}
	return nil
}

func (r *IdempotencyRepo) DeleteUser(_ context.Context, userID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.keys.deleteWhere(func(k idemKey, _ idempotency.Record) bool { return k.user == userID })
	return nil
}

func (r *IdempotencyRepo) Purge(_ context.Context, before time.Time) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.keys.deleteWhere(func(_ idemKey, v idempotency.Record) bool { return v.ExpiresAt.Before(before) })), nil
}
