package memory

import (
	"context"
	"sync"
	"time"

	"tandem/core"
	"tandem/modules/idempotency"
)

var _ idempotency.Repository = (*IdempotencyRepo)(nil)

type idemKey struct{ user, hash string }

// IdempotencyRepo keeps the keys in a map; answers are copied in and out.
type IdempotencyRepo struct {
	mu   sync.Mutex
	keys map[idemKey]idempotency.Record
}

func NewIdempotencyRepo() *IdempotencyRepo {
	return &IdempotencyRepo{keys: map[idemKey]idempotency.Record{}}
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
	if old, ok := r.keys[k]; ok && old.ExpiresAt.After(now) {
		return cloneRecord(old), false, nil
	}
	r.keys[k] = cloneRecord(rec)
	return idempotency.Record{}, true, nil
}

func (r *IdempotencyRepo) Finish(_ context.Context, rec idempotency.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := idemKey{rec.UserID, rec.KeyHash}
	if old, ok := r.keys[k]; !ok || old.ClaimID != rec.ClaimID || old.State == idempotency.Done {
		return core.NotFound("not_found", "memory.notFound", "not found")
	}
	r.keys[k] = cloneRecord(rec)
	return nil
}

func (r *IdempotencyRepo) Renew(_ context.Context, userID, keyHash, claimID string, expires time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := idemKey{userID, keyHash}
	if old, ok := r.keys[k]; ok && old.ClaimID == claimID && old.State == idempotency.Running {
		old.ExpiresAt = expires
		r.keys[k] = old
	}
	return nil
}

func (r *IdempotencyRepo) Release(_ context.Context, userID, keyHash, claimID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := idemKey{userID, keyHash}
	if old, ok := r.keys[k]; ok && old.ClaimID == claimID && old.State == idempotency.Running {
		delete(r.keys, k)
	}
	return nil
}

func (r *IdempotencyRepo) DeleteUser(_ context.Context, userID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k := range r.keys {
		if k.user == userID {
			delete(r.keys, k)
		}
	}
	return nil
}

func (r *IdempotencyRepo) Purge(_ context.Context, before time.Time) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for k, v := range r.keys {
		if v.ExpiresAt.Before(before) {
			delete(r.keys, k)
			n++
		}
	}
	return n, nil
}
