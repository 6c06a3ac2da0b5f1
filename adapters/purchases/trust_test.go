package purchases_test

import (
	"context"
	"testing"
	"time"

	"tandem/adapters/purchases"
	"tandem/core"
	"tandem/modules/premium"
)

func TestTrustVouchesForWhatTheClientSends(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)
	p := premium.Purchase{UserID: "u1", Plan: "9.99", StartDate: now, EndDate: now.Add(time.Hour),
		BillingID: "b1", Platform: core.PlatformAndroid}
	got, err := purchases.NewTrust().Verify(context.Background(), p)
	if err != nil || got != p {
		t.Fatalf("got %+v, %v", got, err)
	}
}
