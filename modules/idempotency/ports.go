package idempotency

import (
	"context"
	"time"
)

// Repository stores the keys. Claim must be atomic across processes: of two
// concurrent claims of one live key exactly one succeeds (a primary key on
// (user_id, key_hash) does it).
type Repository interface {
	// Claim inserts r (Running) unless a record of (r.UserID, r.KeyHash)
	// that expires after now exists: then it returns that record and false.
	// An expired record is replaced.
	Claim(ctx context.Context, r Record, now time.Time) (Record, bool, error)
	// Finish turns the running claim r.ClaimID into r (Done, with its
	// fingerprint, answer and expiry). A claim taken over or released
	// meanwhile is left alone: a core.KindNotFound error.
	Finish(ctx context.Context, r Record) error
	// Renew moves the running claim claimID's expiry to expires; a claim
	// that is gone or no longer running is left alone.
	Renew(ctx context.Context, userID, keyHash, claimID string, expires time.Time) error
	// Release deletes the running claim claimID, so the request may run
	// again; a record that is gone or done is left alone.
	Release(ctx context.Context, userID, keyHash, claimID string) error
	// DeleteUser deletes every key of the user (account deletion).
	DeleteUser(ctx context.Context, userID string) error
	// Purge deletes the records that expired before t and returns how many.
	Purge(ctx context.Context, before time.Time) (int, error)
}
