package changes

import (
	"context"
	"time"

	"tandem/core"
)

// Repository keeps the changes, per reader, in commit order.
type Repository interface {
	// Append records changes outside a write's transaction: those of a store
	// without transactions (core.ChangesCommitted). It sets nothing on cs.
	Append(ctx context.Context, cs []core.Change) error
	// Since returns at most limit of userID's changes after seq, oldest
	// first, with their Seq, Data and At.
	Since(ctx context.Context, userID string, seq int64, limit int) ([]core.Change, error)
	// Last is the Seq of userID's newest change, 0 when none.
	Last(ctx context.Context, userID string) (int64, error)
	// Purge deletes changes older than before, in bounded batches, and
	// says how many.
	Purge(ctx context.Context, before time.Time) (int, error)
	// DeleteUser deletes userID's changes and feed head (the account's
	// deletion); it is idempotent.
	DeleteUser(ctx context.Context, userID string) error
}

// Recording is what a store needs to record a write's changes: the renderer
// of each put's JSON (bound by bootstrap to the HTTP adapter's mappers of
// the REST answers) and the clock of their time.
type Recording struct {
	Render core.ChangeRenderer
	Clock  core.Clock
}
