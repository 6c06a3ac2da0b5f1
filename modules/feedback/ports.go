package feedback

import (
	"context"

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
	// DeleteByUser removes the user's feedback; it is idempotent.
	DeleteByUser(ctx context.Context, userID string) error
}
