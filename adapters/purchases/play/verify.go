package play

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"time"

	"tandem/core"
	"tandem/modules/premium"
)

// Verify reads the subscription of p.Proof's purchase token from Google
// Play and returns it as Play states it now; it reads nothing else of p.
func (v *Verifier) Verify(ctx context.Context, p premium.Purchase) (premium.Purchase, error) {
	token, product := p.Proof.PurchaseToken, p.Proof.ProductID
	if token == "" || product == "" {
		return premium.Purchase{}, core.Invalid("invalid_purchase", "play.purchaseTokenProductIdRequired", "purchaseToken and productId are required")
	}
	return v.read(ctx, token, product, "invalid_purchase")
}

// read is Play's current statement of a token's subscription for
// productID ("" for its first line item), acknowledged when it still needs
// it. A refusal carries code (invalid_purchase or invalid_notification).
func (v *Verifier) read(ctx context.Context, token, productID, code string) (premium.Purchase, error) {
	s, err := v.subscription(ctx, token)
	if err != nil {
		return premium.Purchase{}, storeErr(err, code)
	}
	p, err := v.toPurchase(s, token, productID, code)
	if err != nil {
		return premium.Purchase{}, err
	}
	if s.AcknowledgementState == AcknowledgementStatePending && (p.State == premium.StateActive || p.State == premium.StateGrace) {
		// Play refunds a purchase left unacknowledged for three days. A
		// failed acknowledgement is unavailable, so nothing is stored and
		// the client (or Pub/Sub) retries; the retry's read is still
		// pending and acknowledges again. There is no logger to merely
		// note it in, and storing an unacknowledged purchase would grant
		// premium that Play is about to refund.
		if err := v.acknowledge(ctx, p.ProductID, token); err != nil {
			return premium.Purchase{}, core.Unavailable("unavailable", "play.googlePlayCannotReached", "Google Play cannot be reached").Wrap(err)
		}
	}
	return p, nil
}

// toPurchase maps Play's subscription to what the store vouches for. The
// purchase token is a bearer credential for the API, so only its SHA-256
// is kept.
func (v *Verifier) toPurchase(s SubscriptionPurchaseV2, token, productID, code string) (premium.Purchase, error) {
	item, ok := lineItem(s, productID)
	if !ok {
		return premium.Purchase{}, core.Invalid(code, "play.purchaseNotProduct", "the purchase is not for this product")
	}
	plan, ok := v.plan(item.ProductID)
	if !ok {
		return premium.Purchase{}, core.Invalid(code, "play.productNotSoldHere", "this product is not sold here")
	}
	state, ok := states[s.SubscriptionState]
	if !ok {
		return premium.Purchase{}, core.Invalid(code, "play.subscriptionNoKnownState", "the subscription is in no known state")
	}
	start, err1 := parseTime(s.StartTime)
	end, err2 := parseTime(item.ExpiryTime)
	if err := errors.Join(err1, err2); err != nil {
		return premium.Purchase{}, core.Invalid(code, "play.googlePlayAnswerHasMalformed", "Google Play's answer has malformed times").Wrap(err)
	}
	return premium.Purchase{Plan: plan, StartDate: start, EndDate: end, BillingID: s.LatestOrderID,
		Platform: core.PlatformAndroid, Store: premium.StorePlay, StoreRef: ref(token),
		ProductID: item.ProductID, State: state, SignedAt: v.now()}, nil
}

// states maps Play's subscription states. A canceled subscription has
// only auto-renewal turned off: it stays paid up to its expiry.
var states = map[string]premium.State{
	SubscriptionStateActive:                  premium.StateActive,
	SubscriptionStateCanceled:                premium.StateActive,
	SubscriptionStateInGracePeriod:           premium.StateGrace,
	SubscriptionStateOnHold:                  premium.StateOnHold,
	SubscriptionStatePaused:                  premium.StatePaused,
	SubscriptionStateExpired:                 premium.StateExpired,
	SubscriptionStatePending:                 premium.StatePending,
	SubscriptionStatePendingPurchaseCanceled: premium.StatePending,
}

// lineItem finds productID among s's line items; "" takes the first, for a
// voided purchase whose notification names no product.
func lineItem(s SubscriptionPurchaseV2, productID string) (SubscriptionPurchaseLineItem, bool) {
	for _, it := range s.LineItems {
		if productID == "" || it.ProductID == productID {
			return it, true
		}
	}
	return SubscriptionPurchaseLineItem{}, false
}

// plan is productID's plan: the productId itself without a plan map, and
// only a mapped product with one.
func (v *Verifier) plan(productID string) (string, bool) {
	if len(v.plans) == 0 {
		return productID, productID != ""
	}
	plan, ok := v.plans[productID]
	return plan, ok
}

// parseTime reads an RFC 3339 time; "" is the zero time, left for
// premium's validation to refuse where a date is required.
func parseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t.UTC(), err
}

// ref is the StoreRef of a purchase token: its SHA-256, in hex.
func ref(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}
