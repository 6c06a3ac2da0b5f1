package moods

import (
	"context"
	"time"

	"tandem/core"
)

// Repository stores mood check-ins: at most one per user and date, which the
// storage enforces.
type Repository interface {
	// Put stores m as its user's mood of m.Date in one atomic step: a new
	// mood when the user has none of that date; else the stored one takes
	// m's Level, Note, PartnershipID and UpdatedAt and keeps its own ID and
	// CreatedAt. Of concurrent puts for one user and date, one mood
	// remains. It returns the mood as stored. m.ID is a fresh id: a put
	// never takes an id another mood holds. made, unless nil, is called
	// with the mood as stored before the put commits (in its transaction:
	// the change feed records it with the put).
	Put(ctx context.Context, m Mood, made func(Mood)) (Mood, error)
	// Range returns the user's moods dated from..to (both included), by
	// date; when partnershipID is not "", only those checked in within
	// that partnership.
	Range(ctx context.Context, userID, partnershipID string, from, to core.Date) ([]Mood, error)
	// On returns, in one read, the mood of each key's user on the key's date
	// (when partnershipID is not "", only one checked in within that
	// partnership), in no order; a key without one adds nothing.
	On(ctx context.Context, keys []DayKey) ([]Mood, error)
	// DeleteByUser removes every mood of the user; it is idempotent.
	DeleteByUser(ctx context.Context, userID string) error
}

// DayKey names one user's mood of one date (On).
type DayKey struct {
	UserID, PartnershipID string
	Date                  core.Date
}

// Users gives a user's timezone (accounts.Service), UTC when unset: a
// check-in is of the user's own today. It returns core.KindNotFound
// (user_not_found) for an unknown user.
type Users interface {
	Location(ctx context.Context, userID string) (*time.Location, error)
}

// Partnerships resolves the caller's current partnership
// (partners.Service): a mood is shared with the partner of the
// partnership it was checked in within.
type Partnerships interface {
	PartnershipOf(ctx context.Context, userID string) (partnershipID, partnerID string, ok bool, err error)
}

// Notifier tells a user that their partner (fromUserID) did something of
// kind (the notifications module: for ActivityMoodShared an inbox entry of
// category mood, repeats coalesced into one entry with a count and pushed at
// most every 10 minutes, when the user's moodUpdates setting allows it).
// The mood it announces is already stored, so its error never fails the
// check-in: the bootstrap adapter logs failures.
type Notifier interface {
	NotifyActivity(ctx context.Context, userID, fromUserID, kind string) error
}
