package events

import (
	"context"

	"tandem/core"
)

//go:generate mockgen -typed -source=ports.go -destination=mock_ports_test.go -package=events_test

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
	// Overlapping returns the user's events that touch from..to (start date
	// ≤ to and end date ≥ from), in list order, at most core.MaxListItems.
	// Events last at most MaxSpanDays, so it reads start dates from
	// StartBound(from) to to only.
	Overlapping(ctx context.Context, userID string, from, to core.Date) ([]Event, error)
	// Update applies fn to the stored event and saves the result, all or
	// nothing: an error from fn is returned and nothing is written. The id,
	// owner and creation time cannot change.
	Update(ctx context.Context, id string, fn func(e *Event) error) (Event, error)
	// Delete removes the event id owned by userID.
	Delete(ctx context.Context, userID, id string) error
	// DeleteByUser removes every event of the user; it is idempotent.
	DeleteByUser(ctx context.Context, userID string) error
}

// Partners resolves the current partner (partners.Service): the single read
// may return the partner's event, and date ranges include the partner's.
type Partners interface {
	PartnerOf(ctx context.Context, userID string) (partnerID string, ok bool, err error)
}
