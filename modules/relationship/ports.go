package relationship

import (
	"context"
	"time"

	"tandem/core"
)

// Repository stores relationships. At most one relationship per partnership
// is active, enforced by the schema. Every method is one transaction.
type Repository interface {
	// Start stores r as the active relationship of its partnership; it
	// returns core.KindConflict when that partnership already has one.
	Start(ctx context.Context, r Relationship) error
	// Latest returns the partnership's newest relationship (the active one
	// when there is one); core.KindNotFound when it has none.
	Latest(ctx context.Context, partnershipID string) (Relationship, error)
	// End marks the active relationship id ended on the date; it returns
	// core.KindNotFound when that relationship is not active (any more).
	End(ctx context.Context, id string, on core.Date, at time.Time) (Relationship, error)
	// ListByUser returns every relationship the user was a member of, newest first.
	ListByUser(ctx context.Context, userID string) ([]Relationship, error)
	// DeleteByUser removes every relationship the user was a member of; it is idempotent.
	DeleteByUser(ctx context.Context, userID string) error
}

// Partnerships resolves the caller's current partnership (partners.Service).
type Partnerships interface {
	PartnershipOf(ctx context.Context, userID string) (partnershipID, partnerID string, ok bool, err error)
}

// Users gives a user's timezone (accounts.Service), UTC when unset; it returns
// core.KindNotFound (user_not_found) for an unknown user.
type Users interface {
	Location(ctx context.Context, userID string) (*time.Location, error)
}

// Notifier tells a user that their partner (fromUserID) did something of
// kind (the notifications module: partnerActivity, coalesced and pushed at
// most every 10 minutes, when the user's settings allow it). The
// relationship it announces is already stored, so its error never fails
// the start: the bootstrap adapter logs failures.
type Notifier interface {
	NotifyActivity(ctx context.Context, userID, fromUserID, kind string) error
}
