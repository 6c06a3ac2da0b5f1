package feedback

import (
	"context"
	"time"

	"tandem/core"
)

// Repository stores feedback. Every method is one statement. The lists are
// newest first (by CreatedAt, then id) and paged: page.Size() items after
// page.Cursor, and the cursor of the next page when page.Paged() and more
// follow (else ""); a cursor they did not hand out is core.KindInvalid.
type Repository interface {
	// Create stores f; core.KindConflict when the id is taken.
	Create(ctx context.Context, f Feedback) error
	// ListByUser lists the user's feedback.
	ListByUser(ctx context.Context, userID string, page core.Page) ([]Feedback, string, error)
	// List lists everyone's feedback.
	List(ctx context.Context, page core.Page) ([]Feedback, string, error)
	// ListByState lists everyone's feedback that is handled (or not).
	ListByState(ctx context.Context, handled bool, page core.Page) ([]Feedback, string, error)
	// Get returns one message; core.KindNotFound when there is none.
	Get(ctx context.Context, id string) (Feedback, error)
	// MarkHandled records that by handled the message at at, unless it is
	// handled already (the first mark stays), and returns it as stored;
	// core.KindNotFound when there is no such message.
	MarkHandled(ctx context.Context, id, by string, at time.Time) (Feedback, error)
	// DeleteByUser removes the user's feedback; it is idempotent.
	DeleteByUser(ctx context.Context, userID string) error
}
