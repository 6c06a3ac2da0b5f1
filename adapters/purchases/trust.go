// Package purchases holds the purchase verifiers behind premium.PurchaseVerifier
// and premium.NotificationReader (TANDEM_PURCHASES): trust, and the Stores
// router in front of the App Store and Google Play verifiers.
package purchases

import (
	"context"

	"tandem/core"
	"tandem/modules/premium"
)

var (
	_ premium.PurchaseVerifier   = Trust{}
	_ premium.NotificationReader = Trust{}
)

// Trust accepts what the client sends: for development and the QA profile,
// where there is no store to ask. A store's proof is refused: trusting it
// unverified would be worse than trusting the plain fields.
type Trust struct{}

func NewTrust() Trust { return Trust{} }

func (Trust) Verify(_ context.Context, p premium.Purchase) (premium.Purchase, error) {
	if !p.Proof.Empty() {
		return premium.Purchase{}, errNoStore(p.Proof)
	}
	p.Store, p.StoreRef, p.ProductID, p.State = premium.StoreNone, "", "", premium.StateActive
	return p, nil
}

// Read answers that no store is configured.
func (Trust) Read(_ context.Context, n premium.Notification) (premium.StoreEvent, error) {
	return premium.StoreEvent{}, errNoWebhook(n.Store)
}

func errNoWebhook(s premium.Store) error {
	return core.NotFound("not_found", "purchases.noVerifierConfiguredTANDEMPURCHASES", "no %s verifier is configured (TANDEM_PURCHASES)", string(s))
}
