package purchases

import (
	"context"

	"tandem/core"
	"tandem/modules/premium"
)

var (
	_ premium.PurchaseVerifier   = (*Stores)(nil)
	_ premium.NotificationReader = (*Stores)(nil)
)

// AppStore and Play are the store verifiers as the router uses them
// (appstore.Verifier and play.Verifier).
type AppStore interface {
	Verify(ctx context.Context, p premium.Purchase) (premium.Purchase, error)
	Notification(ctx context.Context, body []byte) (premium.StoreEvent, error)
}

type Play interface {
	Verify(ctx context.Context, p premium.Purchase) (premium.Purchase, error)
	Notification(ctx context.Context, n premium.Notification) (premium.StoreEvent, error)
}

// Stores sends each purchase to the store its proof comes from, and a claim
// without proof to Trust when TANDEM_PURCHASES lists it; nil members are not
// configured.
type Stores struct {
	AppStore AppStore
	Play     Play
	Trust    bool
}

func (s *Stores) Verify(ctx context.Context, p premium.Purchase) (premium.Purchase, error) {
	switch {
	case p.Proof.SignedTransaction != "" && s.AppStore != nil:
		return s.AppStore.Verify(ctx, p)
	case p.Proof.PurchaseToken != "" && s.Play != nil:
		return s.Play.Verify(ctx, p)
	case p.Proof.Empty() && s.Trust:
		return Trust{}.Verify(ctx, p)
	}
	return premium.Purchase{}, errNoStore(p.Proof)
}

func (s *Stores) Read(ctx context.Context, n premium.Notification) (premium.StoreEvent, error) {
	switch {
	case n.Store == premium.StoreAppStore && s.AppStore != nil:
		return s.AppStore.Notification(ctx, n.Body)
	case n.Store == premium.StorePlay && s.Play != nil:
		return s.Play.Notification(ctx, n)
	}
	return premium.StoreEvent{}, errNoWebhook(n.Store)
}

// errNoStore names what the client should have sent.
func errNoStore(p premium.Proof) error {
	switch {
	case p.SignedTransaction != "":
		return core.Invalid("invalid_purchase", "purchases.appStorePurchasesNotAccepted", "App Store purchases are not accepted here")
	case p.PurchaseToken != "":
		return core.Invalid("invalid_purchase", "purchases.googlePlayPurchasesNotAccepted", "Google Play purchases are not accepted here")
	}
	return core.Invalid("invalid_purchase", "purchases.sendStoreProofSignedTransactionInfoApp", "send the store's proof: signedTransactionInfo (App Store) or purchaseToken and productId (Google Play)")
}
