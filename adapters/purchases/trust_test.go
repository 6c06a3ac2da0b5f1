package purchases_test

import (
	"context"
	"testing"
	"time"

	"tandem/adapters/purchases"
	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/premium"
)

func TestTrustVouchesForWhatTheClientSends(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)
	p := premium.Purchase{UserID: "u1", Plan: "9.99", StartDate: now, EndDate: now.Add(time.Hour),
		BillingID: "b1", Platform: core.PlatformAndroid}
	got, err := purchases.NewTrust().Verify(context.Background(), p)
	want := p
	want.State = premium.StateActive
	if err != nil || got != want {
		t.Fatalf("got %+v, %v", got, err)
	}
	// A client cannot smuggle store fields through trust.
	p.Store, p.StoreRef, p.ProductID = premium.StoreAppStore, "1000", "com.example.lifetime"
	if got, _ := purchases.NewTrust().Verify(context.Background(), p); got != want {
		t.Fatalf("store fields kept: %+v", got)
	}
	// Nor a store proof: trust cannot check it.
	p.Proof.SignedTransaction = "a.b.c"
	_, err = purchases.NewTrust().Verify(context.Background(), p)
	coretest.WantErr(t, err, core.KindInvalid, "invalid_purchase")
	_, err = purchases.NewTrust().Read(context.Background(), premium.Notification{Store: premium.StoreAppStore})
	coretest.WantErr(t, err, core.KindNotFound, "not_found")
}

// fakeStore records which store got the call.
type fakeStore struct{ name string }

func (f fakeStore) Verify(_ context.Context, p premium.Purchase) (premium.Purchase, error) {
	p.ProductID = f.name
	return p, nil
}

func (f fakeStore) Notification(context.Context, []byte) (premium.StoreEvent, error) {
	return premium.StoreEvent{Type: f.name}, nil
}

type fakePlay struct{ fakeStore }

func (f fakePlay) Notification(context.Context, premium.Notification) (premium.StoreEvent, error) {
	return premium.StoreEvent{Type: f.name}, nil
}

func TestStoresSendEachProofToItsStore(t *testing.T) {
	t.Parallel()
	apple, google := fakeStore{"appstore"}, fakePlay{fakeStore{"play"}}
	jws := premium.Proof{SignedTransaction: "a.b.c"}
	token := premium.Proof{PurchaseToken: "tok", ProductID: "monthly"}
	cases := []struct {
		name   string
		stores purchases.Stores
		proof  premium.Proof
		want   string // the store that verified; "" for trust; "!" for a refusal
	}{
		{"appstore proof", purchases.Stores{AppStore: apple, Play: google}, jws, "appstore"},
		{"play proof", purchases.Stores{AppStore: apple, Play: google}, token, "play"},
		{"no proof, trust listed", purchases.Stores{AppStore: apple, Trust: true}, premium.Proof{}, ""},
		{"no proof, stores only", purchases.Stores{AppStore: apple, Play: google}, premium.Proof{}, "!"},
		{"appstore proof, play only", purchases.Stores{Play: google, Trust: true}, jws, "!"},
		{"play proof, appstore only", purchases.Stores{AppStore: apple, Trust: true}, token, "!"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.stores.Verify(context.Background(), premium.Purchase{Plan: "9.99", Proof: c.proof})
			if c.want == "!" {
				coretest.WantErr(t, err, core.KindInvalid, "invalid_purchase")
				return
			}
			if err != nil || got.ProductID != c.want {
				t.Fatalf("verified by %q (%v), want %q", got.ProductID, err, c.want)
			}
		})
	}
	s := purchases.Stores{AppStore: apple}
	ev, err := s.Read(context.Background(), premium.Notification{Store: premium.StoreAppStore})
	if err != nil || ev.Type != "appstore" {
		t.Fatalf("app store webhook: %+v %v", ev, err)
	}
	_, err = s.Read(context.Background(), premium.Notification{Store: premium.StorePlay})
	coretest.WantErr(t, err, core.KindNotFound, "not_found")
}
