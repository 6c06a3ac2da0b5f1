package relationship

import (
	"context"
	"time"

	"tandem/core"
)

// Repository stores relationships. At most one relationship per partnership
// is active, enforced by the schema. Every method is one transaction.
type Repository interface {
	// Start stores r as the active relationship of its partnership, its
	// milestone check due at once (at r.CreatedAt: MilestoneRepository); it
	// returns core.KindConflict when that partnership already has one.
	Start(ctx context.Context, r Relationship) error
	// Latest returns the partnership's newest relationship (the active one
	// when there is one); core.KindNotFound when it has none.
	Latest(ctx context.Context, partnershipID string) (Relationship, error)
	// End marks the active relationship id ended on the date and drops its
	// milestone check; it returns core.KindNotFound when that relationship
	// is not active (any more).
	End(ctx context.Context, id string, on core.Date, at time.Time) (Relationship, error)
	// ListByUser returns every relationship the user was a member of, newest first.
	ListByUser(ctx context.Context, userID string) ([]Relationship, error)
	// DeleteByUser removes every relationship the user was a member of,
	// with their milestone claims; it is idempotent.
	DeleteByUser(ctx context.Context, userID string) error
}

// MilestoneRepository keeps when each active relationship's milestone
// pushes are next looked at (its check: made due at once by
// Repository.Start, dropped by End, read in due order through an index so
// the job never scans every relationship) and the claims that make each
// push go out once: one per user, relationship and local date, whichever
// process inserts it first. Every method is one statement.
type MilestoneRepository interface {
	// DueMilestones returns up to limit active relationships whose check
	// is due at or before now, earliest first (then by id).
	DueMilestones(ctx context.Context, now time.Time, limit int) ([]MilestoneCheck, error)
	// MoveMilestones sets the relationship's check to to if it is still due
	// at from, and reports whether it did (else another process, a
	// recheck or the end got there first).
	MoveMilestones(ctx context.Context, relationshipID string, from, to time.Time) (bool, error)
	// RecheckMilestones makes the check of the relationship due at at, if
	// the relationship is still active.
	RecheckMilestones(ctx context.Context, relationshipID string, at time.Time) error
	// ClaimMilestone records that the user is told, at at, of the
	// relationship's milestones on their local date day; false when that
	// is already recorded, by any process.
	ClaimMilestone(ctx context.Context, userID, relationshipID string, day core.Date, at time.Time) (bool, error)
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

// MilestoneNotifier saves a notification of category to the user's inbox
// and pushes it when their settings allow (the notifications module). The
// claim is taken before, so a failure loses that push rather than
// doubling it; the bootstrap adapter logs failures.
type MilestoneNotifier interface {
	Notify(ctx context.Context, userID, category string, text core.Message) error
}
