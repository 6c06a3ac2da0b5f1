package messages

import (
	"context"

	"tandem/core"
)

//go:generate go run go.uber.org/mock/mockgen@v0.6.0 -typed -destination=mock_ports_test.go -package=messages_test . Repository,Partnerships,Notifier

// Repository stores messages. Every method is one transaction.
type Repository interface {
	// Add stores a new message; core.KindConflict when the id is taken.
	Add(ctx context.Context, m Message) error
	// List returns the messages of one thread in list order (newest first),
	// at most page.Size(), after page.Cursor when it is set, and the cursor
	// of the next page when page.Paged() and more follow (else ""). A cursor
	// that is not one of this order's is core.KindInvalid.
	List(ctx context.Context, scope string, page core.Page) ([]Message, string, error)
	// ByAuthor returns the messages the user wrote, in every thread, paged
	// like List.
	ByAuthor(ctx context.Context, authorID string, page core.Page) ([]Message, string, error)
	// DeleteUser deletes every message the user wrote, in every thread, and
	// every message of the user's solo thread, all or nothing; it is
	// idempotent.
	DeleteUser(ctx context.Context, userID string) error
}

// Partnerships resolves the user's current partnership (partners.Service):
// messages are keyed by it.
type Partnerships interface {
	PartnershipOf(ctx context.Context, userID string) (partnershipID, partnerID string, ok bool, err error)
}

// Notifier tells a user that their partner (fromUserID) did something of
// kind (the notifications module: partnerActivity, coalesced into one inbox
// entry with a count and pushed at most every 10 minutes, when the user's
// settings allow it). The message it announces is already stored, so its
// error never fails the send: the bootstrap adapter logs failures.
type Notifier interface {
	NotifyActivity(ctx context.Context, userID, fromUserID, kind string) error
}
