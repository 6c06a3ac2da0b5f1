package flags

import (
	"context"

	"tandem/core"
)

// Repository stores feature flags with their user lists. Every method is one
// transaction. Get, Update and Delete return core.KindNotFound when no flag
// has the key.
type Repository interface {
	// Create stores a new flag with its lists if room allows it with the
	// count of the flags that exist (counted in the same transaction, so
	// concurrent creates cannot pass it: room's error then, and nothing is
	// written). core.KindConflict when the key (or id) is taken.
	Create(ctx context.Context, f Flag, room core.Room) error
	// Get returns the flag with its lists.
	Get(ctx context.Context, key string) (Flag, error)
	// List returns flags with their lists in key order, at most page.Size(),
	// after page.Cursor when it is set (a cursor that is not one of this
	// order's is core.KindInvalid), and the cursor of the next page when
	// page.Paged() and more follow (else "").
	List(ctx context.Context, page core.Page) ([]Flag, string, error)
	// Update applies fn to the stored flag and saves the result, lists
	// included, all or nothing: an error from fn is returned and nothing is
	// written. The id, key, creator and creation time cannot change.
	Update(ctx context.Context, key string, fn func(f *Flag) error) (Flag, error)
	// Delete removes the flag and its lists.
	Delete(ctx context.Context, key string) error

	// RuleFor returns the flag for evaluation (lists left nil) with where
	// userID is listed in it ("" is listed nowhere): one read by key.
	RuleFor(ctx context.Context, key, userID string) (Rule, error)
	// RulesFor returns every flag for evaluation, in key order, with where
	// userID is listed in each; at most MaxFlags.
	RulesFor(ctx context.Context, userID string) ([]Rule, error)
	// Unlist removes userID from the lists of every flag (account
	// deletion); it is idempotent.
	Unlist(ctx context.Context, userID string) error
}

// Premium answers whether a user is premium, directly or through the
// partner (premium.Service). A user id that is no account is not premium.
type Premium interface {
	IsPremium(ctx context.Context, userID string) (bool, error)
}
