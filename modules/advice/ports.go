package advice

import (
	"context"
	"time"

	"tandem/core"
)

// Repository stores each user's advice of each date. Every method is one
// transaction; a user has at most one advice per date, which the storage
// enforces.
type Repository interface {
	// Open returns the user's advice of day. When there is none yet it calls
	// pick with the user's advice of the dates NearbyFrom(day)..NearbyTo(day)
	// (in date order) and stores what pick returns, all at once: of two
	// concurrent first calls for a date, one picks and both return its
	// advice. An error from pick is returned and nothing is stored.
	Open(ctx context.Context, userID string, day core.Date, pick func(nearby []Daily) (Daily, error)) (Daily, error)
	// ListByUser returns every advice of the user, newest date first.
	ListByUser(ctx context.Context, userID string) ([]Daily, error)
	// DeleteByUser removes every advice of the user; it is idempotent.
	DeleteByUser(ctx context.Context, userID string) error
}

// Users gives a user's timezone (accounts.Service), UTC when unset: the
// advice changes at the user's own midnight. It returns core.KindNotFound
// (user_not_found) for an unknown user.
type Users interface {
	Location(ctx context.Context, userID string) (*time.Location, error)
	Locale(ctx context.Context, userID string) (string, error)
}
