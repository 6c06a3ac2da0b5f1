package events

import (
	"context"
	"time"

	"tandem/core"
)

//go:generate go run go.uber.org/mock/mockgen@v0.6.0 -typed -destination=mock_ports_test.go -package=events_test . Repository,Partners,PartnerNotifier

// Repository stores calendar events. Every method is one transaction. Get,
// Update and Delete return core.KindNotFound when there is no such event (for
// Delete: none with that id owned by userID); the service turns it into
// event_not_found.
type Repository interface {
	// Create stores a new event; core.KindConflict when the id is taken.
	Create(ctx context.Context, e Event) error
	// Get returns the event with the id, whoever owns it.
	Get(ctx context.Context, id string) (Event, error)
	// List returns the user's events in list order (start date, then id),
	// at most page.Size(), after page.Cursor when it is set, and the cursor
	// of the next page when page.Paged() and more follow (else ""). A cursor
	// that is not one of this order's is core.KindInvalid.
	List(ctx context.Context, userID string, page core.Page) ([]Event, string, error)
	// Overlapping returns the events of the users userIDs (a couple: one
	// read) that touch from..to (start date ≤ to and end date ≥ from), in
	// list order, at most core.MaxListItems in all. Events last at most
	// MaxSpanDays, so it reads start dates from StartBound(from) to to only.
	Overlapping(ctx context.Context, userIDs []string, from, to core.Date) ([]Event, error)
	// Next returns the first event of the users userIDs that touches
	// from..to in NextOrder (start date, start time, id), ok false when
	// none does. It reads one event per user whatever they keep: each
	// user's start dates from StartBound(from) up to the first that holds
	// one, ended events skipped inside the read.
	Next(ctx context.Context, userIDs []string, from, to core.Date) (e Event, ok bool, err error)
	// Update applies fn to the stored event and saves the result, all or
	// nothing: an error from fn is returned and nothing is written. The id,
	// owner and creation time cannot change.
	Update(ctx context.Context, id string, fn func(e *Event) error) (Event, error)
	// Delete removes the event id owned by userID.
	Delete(ctx context.Context, userID, id string) error
	// DeleteByUser removes every event of the user; it is idempotent.
	DeleteByUser(ctx context.Context, userID string) error
	// DueReminders returns up to limit events whose RemindAt is set and not
	// after now, earliest first.
	DueReminders(ctx context.Context, now time.Time, limit int) ([]Event, error)
	// ClaimReminder clears the event's RemindAt if it still equals at, and
	// reports whether this caller did: of several processes, one sends.
	ClaimReminder(ctx context.Context, id string, at time.Time) (bool, error)
}

// Users gives the owner's timezone, in which a reminder's lead time counts
// (accounts.Service).
type Users interface {
	Location(ctx context.Context, userID string) (*time.Location, error)
}

// Notifier delivers a reminder to the owner (the notifications module).
type Notifier interface {
	Notify(ctx context.Context, userID, category string, text core.Message) error
}

// PartnerNotifier tells a user that their partner (fromUserID) did
// something of kind (the notifications module: partnerActivity, coalesced
// into one inbox entry with a count and pushed at most every 10 minutes,
// when the user's settings allow it). The event it announces is already
// stored, so its error never fails the write: the bootstrap adapter logs
// failures.
type PartnerNotifier interface {
	NotifyActivity(ctx context.Context, userID, fromUserID, kind string) error
}

// Partners resolves the current partner (partners.Service): the single read
// may return the partner's event, and date ranges include the partner's. A
// write's feed names the partnership the partner reads its event through
// (PartnershipOf).
type Partners interface {
	PartnerOf(ctx context.Context, userID string) (partnerID string, ok bool, err error)
	PartnershipOf(ctx context.Context, userID string) (partnershipID, partnerID string, ok bool, err error)
}
