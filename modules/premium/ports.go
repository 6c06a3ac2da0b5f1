package premium

import (
	"context"
	"time"
)

//go:generate go run go.uber.org/mock/mockgen@v0.6.0 -typed -destination=mock_ports_test.go -package=premium_test . Partners,PurchaseVerifier

// Repository stores direct subscriptions, one per user. Get and Update return
// core.KindNotFound when the user has none. Every method is one transaction.
type Repository interface {
	Get(ctx context.Context, userID string) (Subscription, error)
	// Put creates the user's subscription or replaces every field of the
	// existing one except CreatedAt.
	Put(ctx context.Context, s Subscription) error
	// Update applies fn to the stored subscription and saves the result, all
	// or nothing; an error from fn is returned and nothing is written.
	Update(ctx context.Context, userID string, fn func(s *Subscription) error) (Subscription, error)
	// Delete removes the user's subscription; it is idempotent.
	Delete(ctx context.Context, userID string) error
	// Put and Update return core.KindConflict (code purchase_in_use) when
	// another account holds the subscription's store key (Subscription.Key).

	// ApplyStoreEvent records eventID (received at) and applies fn to the subscription whose
	// store key is key, in one transaction. An eventID seen before changes
	// nothing (applied false); so does a key no account holds (found false,
	// the event still recorded). An error from fn writes nothing.
	ApplyStoreEvent(ctx context.Context, eventID, key string, at time.Time, fn func(s *Subscription) error) (applied, found bool, err error)
	// ByKey returns the subscription that holds the store key
	// (Subscription.Key); core.KindNotFound when none does.
	ByKey(ctx context.Context, key string) (Subscription, error)
	// DueLapses lists up to limit subscriptions whose LapseDue is set and
	// not after now, soonest due first.
	DueLapses(ctx context.Context, now time.Time, limit int) ([]Subscription, error)
}

// Partners resolves the current partner (partners.Service): inherited premium
// is derived from the partner's own subscription on every read. A write's
// feed names the partnership the partner inherits it through
// (PartnershipOf).
type Partners interface {
	PartnerOf(ctx context.Context, userID string) (partnerID string, ok bool, err error)
	PartnershipOf(ctx context.Context, userID string) (partnershipID, partnerID string, ok bool, err error)
}

// PurchaseVerifier confirms a purchase with its store before it is written
// (TANDEM_PURCHASES) and returns the purchase as the store vouches for it.
// It returns core.KindInvalid (code invalid_purchase) when the store refuses
// it and core.KindUnavailable when the store cannot be reached.
type PurchaseVerifier interface {
	Verify(ctx context.Context, p Purchase) (Purchase, error)
}

// NotificationReader verifies a store's server notification (a webhook) and
// returns what it says. It returns core.KindInvalid (invalid_notification)
// for one that does not verify, core.KindUnauthorized for a push without its
// credentials, core.KindNotFound for a store that is not configured and
// core.KindUnavailable when the store must be asked and cannot be reached.
type NotificationReader interface {
	Read(ctx context.Context, n Notification) (StoreEvent, error)
}
