package premium_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"tandem/adapters/memory"
	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/premium"
)

// fakeStore vouches for whatever purchase it holds for a proof, and reads
// queued notifications: the rules, not the cryptography, are tested here.
type fakeStore struct {
	byProof map[string]premium.Purchase
	events  map[string]premium.StoreEvent // by notification body
}

func (f *fakeStore) Verify(_ context.Context, p premium.Purchase) (premium.Purchase, error) {
	if p.Proof.Empty() {
		return premium.Purchase{}, core.Invalid("invalid_purchase", "premium.sendStoreProof", "send the store's proof")
	}
	v, ok := f.byProof[p.Proof.SignedTransaction+p.Proof.PurchaseToken]
	if !ok {
		return premium.Purchase{}, core.Invalid("invalid_purchase", "premium.signatureDoesNotVerify", "signature does not verify")
	}
	return v, nil
}

func (f *fakeStore) Read(_ context.Context, n premium.Notification) (premium.StoreEvent, error) {
	ev, ok := f.events[string(n.Body)]
	if !ok {
		return premium.StoreEvent{}, core.Invalid("invalid_notification", "premium.signatureDoesNotVerify", "signature does not verify")
	}
	return ev, nil
}

type storeFixture struct {
	svc   *premium.Service
	repo  *memory.PremiumRepo
	clock *coretest.FixedClock
	store *fakeStore
}

func newStoreFixture() *storeFixture {
	f := &storeFixture{repo: memory.NewPremiumRepo(), clock: coretest.NewClock(time.Time{}),
		store: &fakeStore{byProof: map[string]premium.Purchase{}, events: map[string]premium.StoreEvent{}}}
	f.svc = premium.NewService(f.repo, coretest.NewCouples(), f.store, f.store, policy, f.clock, nil)
	return f
}

// apple is what the store signed for original transaction ref, a month from now.
func (f *storeFixture) apple(ref string, state premium.State, end time.Time) premium.Purchase {
	now := f.clock.Now()
	return premium.Purchase{Plan: "9.99", StartDate: now.Add(-time.Hour), EndDate: end, BillingID: ref,
		Platform: core.PlatformIOS, Store: premium.StoreAppStore, StoreRef: ref, ProductID: "com.example.monthly",
		State: state, SignedAt: now}
}

func (f *storeFixture) get(t *testing.T, user string) premium.Subscription {
	t.Helper()
	s, err := f.repo.Get(context.Background(), user)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestStorePurchasesComeFromTheStoreOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newStoreFixture()
	month := f.clock.Now().AddDate(0, 1, 0)
	f.store.byProof["jws-1"] = f.apple("1000", premium.StateActive, month)

	// The client's own fields are ignored: the store's plan and dates are stored.
	lifetime := premium.Draft{Plan: "lifetime", StartDate: f.clock.Now(), EndDate: f.clock.Now().AddDate(100, 0, 0),
		Meta: json.RawMessage(`{"from":"app"}`), Proof: premium.Proof{SignedTransaction: "jws-1"}}
	if err := f.svc.Subscribe(ctx, "u1", lifetime); err != nil {
		t.Fatal(err)
	}
	got := f.get(t, "u1")
	if got.Plan != "9.99" || !got.EndDate.Equal(month) || got.Store != premium.StoreAppStore || got.StoreRef != "1000" ||
		!got.IsActive || string(got.Meta) != `{"from":"app"}` {
		t.Fatalf("stored %+v", got)
	}
	// Without a proof the plain fields go nowhere when only a store is configured.
	coretest.WantErr(t, f.svc.Subscribe(ctx, "u2", premium.Draft{Plan: "lifetime", StartDate: f.clock.Now(),
		EndDate: month}), core.KindInvalid, "invalid_purchase")
	// Another account sending the same purchase: 409, nothing written.
	coretest.WantErr(t, f.svc.Subscribe(ctx, "u2", lifetime), core.KindConflict, "purchase_in_use")
	if _, err := f.repo.Get(ctx, "u2"); !core.IsKind(err, core.KindNotFound) {
		t.Fatal("u2 got the purchase")
	}
	// A store subscription changes only through the store (meta aside).
	plan := "lifetime"
	coretest.WantErr(t, f.svc.Update(ctx, "u1", premium.Patch{Plan: &plan}), core.KindInvalid, "invalid_purchase")
	if err := f.svc.Update(ctx, "u1", premium.Patch{Meta: json.RawMessage(`{"k":1}`)}); err != nil {
		t.Fatal(err)
	}
	if got := f.get(t, "u1"); got.Plan != "9.99" || string(got.Meta) != `{"k":1}` {
		t.Fatalf("after meta update %+v", got)
	}
	year := f.clock.Now().AddDate(1, 0, 0)
	f.store.byProof["jws-2"] = f.apple("1000", premium.StateActive, year)
	f.clock.Advance(time.Minute)
	if err := f.svc.Update(ctx, "u1", premium.Patch{Proof: premium.Proof{SignedTransaction: "jws-2"}}); err != nil {
		t.Fatal(err)
	}
	if got := f.get(t, "u1"); !got.EndDate.Equal(year) || !got.LastRenewed.Equal(f.clock.Now()) {
		t.Fatalf("a newer transaction did not renew: %+v", got)
	}
	// A refunded purchase is refused at create.
	f.store.byProof["jws-3"] = f.apple("3000", premium.StateRevoked, month)
	coretest.WantErr(t, f.svc.Subscribe(ctx, "u3", premium.Draft{Proof: premium.Proof{SignedTransaction: "jws-3"}}),
		core.KindInvalid, "invalid_purchase")
	// An oversized proof is refused before any store sees it.
	big := premium.Draft{Proof: premium.Proof{SignedTransaction: string(make([]byte, premium.MaxProof+1))}}
	coretest.WantErr(t, f.svc.Subscribe(ctx, "u3", big), core.KindInvalid, "invalid_purchase")
	// So is a product id longer than the column that would keep it.
	f.store.byProof["play-token"] = f.apple("4000", premium.StateActive, month)
	long := premium.Draft{Proof: premium.Proof{PurchaseToken: "play-token", ProductID: strings.Repeat("p", premium.MaxProductID+1)}}
	coretest.WantErr(t, f.svc.Subscribe(ctx, "u3", long), core.KindInvalid, "invalid_purchase")
}

func TestStoreNotificationsDecideEntitlement(t *testing.T) {
	t.Parallel()
	day := 24 * time.Hour
	cases := []struct {
		name      string
		state     premium.State
		end       time.Duration // from now
		signedAgo time.Duration // how long before the stored statement it was signed (negative: after)
		premium   bool
		renewed   bool
	}{
		{"renewal extends", premium.StateActive, 60 * day, -time.Second, true, true},
		{"grace period counts as active", premium.StateGrace, 3 * day, -time.Second, true, false},
		{"billing retry past expiry ends it", premium.StateBillingRetry, -day, -time.Second, false, false},
		{"expired", premium.StateExpired, -day, -time.Second, false, false},
		{"refund ends it at once", premium.StateRevoked, 20 * day, -time.Second, false, false},
		{"on hold", premium.StateOnHold, 20 * day, -time.Second, false, false},
		{"a late, older statement changes nothing", premium.StateRevoked, 20 * day, time.Second, true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			f := newStoreFixture()
			start := f.clock.Now()
			f.store.byProof["jws"] = f.apple("1000", premium.StateActive, start.AddDate(0, 1, 0))
			if err := f.svc.Subscribe(ctx, "u1", premium.Draft{Proof: premium.Proof{SignedTransaction: "jws"}}); err != nil {
				t.Fatal(err)
			}
			f.clock.Advance(time.Hour)
			p := f.apple("1000", c.state, f.clock.Now().Add(c.end))
			p.SignedAt = start.Add(-c.signedAgo)
			f.store.events["n1"] = premium.StoreEvent{ID: "uuid-1", Type: "T", Purchase: &p}
			n := premium.Notification{Store: premium.StoreAppStore, Body: []byte("n1")}
			if _, err := f.svc.Notify(ctx, n); err != nil {
				t.Fatal(err)
			}
			st, err := f.svc.Status(ctx, "u1")
			if err != nil || st.IsPremium != c.premium {
				t.Fatalf("premium %v (%v), want %v", st.IsPremium, err, c.premium)
			}
			if got := f.get(t, "u1"); got.LastRenewed.Equal(f.clock.Now()) != c.renewed {
				t.Fatalf("lastRenewed %v, renewed want %v", got.LastRenewed, c.renewed)
			}
		})
	}
}

func TestStoreNotificationsApplyOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newStoreFixture()
	f.store.byProof["jws"] = f.apple("1000", premium.StateActive, f.clock.Now().AddDate(0, 1, 0))
	if err := f.svc.Subscribe(ctx, "u1", premium.Draft{Proof: premium.Proof{SignedTransaction: "jws"}}); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Hour)
	refund := f.apple("1000", premium.StateRevoked, f.clock.Now())
	f.store.events["refund"] = premium.StoreEvent{ID: "uuid-1", Type: "REFUND", Purchase: &refund}
	reversed := f.apple("1000", premium.StateActive, f.clock.Now().AddDate(0, 1, 0))
	reversed.SignedAt = f.clock.Now().Add(time.Second)
	f.store.events["reversed"] = premium.StoreEvent{ID: "uuid-2", Type: "REFUND_REVERSED", Purchase: &reversed}
	notify := func(body string) {
		t.Helper()
		if _, err := f.svc.Notify(ctx, premium.Notification{Store: premium.StoreAppStore, Body: []byte(body)}); err != nil {
			t.Fatal(err)
		}
	}
	notify("refund")
	if f.get(t, "u1").IsActive {
		t.Fatal("a refund left the subscription active")
	}
	notify("reversed")
	if !f.get(t, "u1").IsActive {
		t.Fatal("a reversed refund did not reactivate")
	}
	notify("refund") // redelivered: already applied, changes nothing
	if got := f.get(t, "u1"); !got.IsActive || got.State != premium.StateActive {
		t.Fatalf("a redelivered refund was applied again: %+v", got)
	}
	_, err := f.svc.Notify(ctx, premium.Notification{Store: premium.StoreAppStore, Body: []byte("forged")})
	coretest.WantErr(t, err, core.KindInvalid, "invalid_notification")
	// A notification about a purchase nobody holds is accepted and stored nowhere.
	other := f.apple("9999", premium.StateActive, f.clock.Now().AddDate(0, 1, 0))
	f.store.events["other"] = premium.StoreEvent{ID: "uuid-3", Type: "DID_RENEW", Purchase: &other}
	notify("other")
	if _, err := f.repo.Get(ctx, "u2"); !core.IsKind(err, core.KindNotFound) {
		t.Fatal("a notification created a subscription")
	}
}
