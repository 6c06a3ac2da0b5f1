package throttle

import (
	"context"
	"time"
)

// Repository stores counters keyed by (key, window start). Implementations
// must make Add atomic across processes (one upsert in one transaction).
type Repository interface {
	// Add increments the counter, creating it with the given expiry, and
	// returns the new count.
	Add(ctx context.Context, key string, window time.Time, expires time.Time) (int, error)
	// Count returns the counter, 0 when absent.
	Count(ctx context.Context, key string, window time.Time) (int, error)
	// Sub takes one from the counter, never below zero; absent is a no-op.
	Sub(ctx context.Context, key string, window time.Time) error
	// Clear deletes every window of key (a success resets failures).
	Clear(ctx context.Context, key string) error
	// Purge deletes counters that expired before t and returns how many.
	Purge(ctx context.Context, before time.Time) (int, error)
}
