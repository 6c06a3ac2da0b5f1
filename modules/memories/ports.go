package memories

import (
	"context"

	"tandem/core"
)

//go:generate go run go.uber.org/mock/mockgen@v0.6.0 -typed -destination=mock_ports_test.go -package=memories_test . Repository,Partners,Notifier

// Repository stores memories. Every method is one transaction. Get, Update
// and Delete return core.KindNotFound when the user has no memory with that
// id (another user's included); the service words it as not_found.
type Repository interface {
	// Create stores a new memory if room allows it with the count of its
	// owner's memories (nil: any number), counting and inserting in one
	// transaction so that concurrent creates never pass room: room's
	// error then, and nothing is written. core.KindConflict when the id is
	// taken.
	Create(ctx context.Context, m Memory, room core.Room) error
	// Get returns the user's memory.
	Get(ctx context.Context, userID, id string) (Memory, error)
	// List returns the user's memories dated within span (bounds included)
	// in list order (see ListOrder), at most page.Size(), after page.Cursor
	// when it is set, and the cursor of the next page when page.Paged() and
	// more follow (else ""). A cursor that is not one of this order's is
	// core.KindInvalid.
	List(ctx context.Context, userID string, span Span, page core.Page) ([]Memory, string, error)
	// Count counts the user's memories of one date.
	Count(ctx context.Context, userID string, date core.Date) (int, error)
	// Update applies fn to the user's stored memory and saves the result, all
	// or nothing: an error from fn is returned and nothing is written. The
	// id, owner and creation time cannot change.
	Update(ctx context.Context, userID, id string, fn func(m *Memory) error) (Memory, error)
	// Delete removes the user's memory.
	Delete(ctx context.Context, userID, id string) error
	// DeleteByUser removes every memory of the user; it is idempotent.
	DeleteByUser(ctx context.Context, userID string) error
}

// Partners resolves the current partner (partners.Service), who hears of
// each new memory.
type Partners interface {
	PartnerOf(ctx context.Context, userID string) (partnerID string, ok bool, err error)
}

// Limits tells how many memories the user may keep: the "memories" limit of
// the user's premium state (premium.Service; a partner's shared premium
// counts), NoLimit when none is configured.
type Limits interface {
	MaxMemories(ctx context.Context, userID string) (int, error)
}

// Notifier tells a user that their partner (fromUserID) did something of
// kind (the notifications module: partnerActivity, repeats coalesced into one
// inbox entry with a count and pushed at most every 10 minutes, when the
// user's settings allow it). The memory it announces is already stored, so
// its error never undoes or fails the creation: the bootstrap adapter logs
// failures.
type Notifier interface {
	NotifyActivity(ctx context.Context, userID, fromUserID, kind string) error
}
