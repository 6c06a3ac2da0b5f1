package admin

import (
	"context"
	"time"

	"tandem/core"
)

// AuditLog stores the console's audit entries. Every method is one statement.
type AuditLog interface {
	// Append stores e; core.KindConflict when the id is taken.
	Append(ctx context.Context, e Entry) error
	// Complete sets the entry's outcome and after-state; core.KindNotFound
	// when there is no such entry.
	Complete(ctx context.Context, id string, outcome Outcome, after string) error
	// List lists entries newest first (by At, then id), page.Size() after
	// page.Cursor, and the next cursor when page.Paged() and more follow; a
	// cursor it did not hand out is core.KindInvalid.
	List(ctx context.Context, page core.Page) ([]Entry, string, error)
}

// Stats counts for the overview, each from an index.
type Stats interface {
	// Overview counts users, couples, direct subscriptions granting premium
	// at now, and images created at or after since.
	Overview(ctx context.Context, now, since time.Time) (Overview, error)
}
