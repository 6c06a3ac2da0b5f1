package storetest

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/premium"
)

// PremiumRepository checks a premium.Repository implementation.
func PremiumRepository(t *testing.T, newRepo func(t *testing.T) premium.Repository) {
	ps := premiumSuite{newRepo: newRepo}
	t.Run("put, get, absent user", ps.putAndGet)
	t.Run("put replaces every field but created_at", ps.putReplaces)
	t.Run("update applies fn atomically; an error writes nothing", ps.update)
	t.Run("delete is idempotent and touches only the user", ps.deleteUser)
	t.Run("store fields round-trip; trusted subscriptions share no key", ps.storeFields)
	t.Run("one store purchase, one account", ps.onePurchaseOneAccount)
	t.Run("store events apply once, to the key's holder", ps.storeEventsOnce)
	t.Run("a store key's holder", ps.byKey)
	t.Run("lapses due, soonest first, up to now", ps.dueLapses)
}

// premiumSuite holds PremiumRepository's helpers and subtests.
type premiumSuite struct {
	newRepo func(t *testing.T) premium.Repository
}

func (premiumSuite) sub(user, plan string) premium.Subscription {
	return premium.Subscription{UserID: user, Plan: plan, StartDate: now, EndDate: now.Add(30 * 24 * time.Hour),
		IsActive: true, BillingID: "b-" + user, Platform: core.PlatformIOS, LastRenewed: now,
		Meta: json.RawMessage(`{"store":"apple","n":[1,2]}`), CreatedAt: now, UpdatedAt: now}
}

func (premiumSuite) same(t *testing.T, got, want premium.Subscription) {
	t.Helper()
	if got.UserID != want.UserID || got.Plan != want.Plan || !got.StartDate.Equal(want.StartDate) ||
		!got.EndDate.Equal(want.EndDate) || got.IsActive != want.IsActive || got.Cancelled != want.Cancelled ||
		got.BillingID != want.BillingID || got.Platform != want.Platform || !got.LastRenewed.Equal(want.LastRenewed) ||
		string(got.Meta) != string(want.Meta) || !got.CreatedAt.Equal(want.CreatedAt) || !got.UpdatedAt.Equal(want.UpdatedAt) ||
		got.Store != want.Store || got.StoreRef != want.StoreRef || got.ProductID != want.ProductID ||
		got.State != want.State || !got.StoreSignedAt.Equal(want.StoreSignedAt) || !got.LapseDue.Equal(want.LapseDue) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
}

func (ps premiumSuite) stored(user, ref string) premium.Subscription {
	s := ps.sub(user, "9.99")
	s.Store, s.StoreRef, s.ProductID, s.State = premium.StoreAppStore, ref, "com.example.monthly", premium.StateActive
	s.StoreSignedAt = now.Add(-time.Minute)
	return s
}

func (ps premiumSuite) putAndGet(t *testing.T) {
	r := ps.newRepo(t)
	s := ps.sub("u1", "9.99")
	s.StartDate = time.UnixMilli(1718452800123).UTC() // milliseconds survive
	must(t, r.Put(ctx, s))
	got, err := r.Get(ctx, "u1")
	must(t, err)
	ps.same(t, got, s)
	_, err = r.Get(ctx, "u2")
	wantKind(t, err, core.KindNotFound)
}

func (ps premiumSuite) putReplaces(t *testing.T) {
	r := ps.newRepo(t)
	must(t, r.Put(ctx, ps.sub("u1", "9.99")))
	must(t, r.Put(ctx, ps.sub("u2", "1.99")))
	later := now.Add(time.Hour)
	next := premium.Subscription{UserID: "u1", Plan: "19.99", StartDate: later, EndDate: later.Add(time.Hour),
		IsActive: true, LastRenewed: later, Meta: json.RawMessage(`{}`), CreatedAt: later, UpdatedAt: later}
	must(t, r.Put(ctx, next))
	got, _ := r.Get(ctx, "u1")
	next.CreatedAt = now
	ps.same(t, got, next)
	other, _ := r.Get(ctx, "u2")
	ps.same(t, other, ps.sub("u2", "1.99"))
}

func (ps premiumSuite) update(t *testing.T) {
	r := ps.newRepo(t)
	must(t, r.Put(ctx, ps.sub("u1", "9.99")))
	out, err := r.Update(ctx, "u1", func(s *premium.Subscription) error {
		s.IsActive, s.Cancelled, s.Plan = false, true, "4.99"
		s.Meta = json.RawMessage(`{"k":"v"}`)
		s.UpdatedAt = now.Add(time.Minute)
		return nil
	})
	must(t, err)
	want := ps.sub("u1", "4.99")
	want.IsActive, want.Cancelled, want.Meta, want.UpdatedAt = false, true, json.RawMessage(`{"k":"v"}`), now.Add(time.Minute)
	ps.same(t, out, want)
	got, _ := r.Get(ctx, "u1")
	ps.same(t, got, want)

	boom := errors.New("boom")
	_, err = r.Update(ctx, "u1", func(s *premium.Subscription) error { s.Plan = "lost"; return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("fn error: %v", err)
	}
	got, _ = r.Get(ctx, "u1")
	ps.same(t, got, want)

	called := false
	_, err = r.Update(ctx, "ghost", func(*premium.Subscription) error { called = true; return nil })
	wantKind(t, err, core.KindNotFound)
	if called {
		t.Fatal("fn called without a subscription")
	}
}

func (ps premiumSuite) deleteUser(t *testing.T) {
	r := ps.newRepo(t)
	must(t, r.Put(ctx, ps.sub("u1", "9.99")))
	must(t, r.Put(ctx, ps.sub("u2", "9.99")))
	must(t, r.Delete(ctx, "u1"))
	must(t, r.Delete(ctx, "u1"))
	_, err := r.Get(ctx, "u1")
	wantKind(t, err, core.KindNotFound)
	_, err = r.Get(ctx, "u2")
	must(t, err)
}

func (ps premiumSuite) storeFields(t *testing.T) {
	r := ps.newRepo(t)
	must(t, r.Put(ctx, ps.stored("u1", "1000000001")))
	got, err := r.Get(ctx, "u1")
	must(t, err)
	ps.same(t, got, ps.stored("u1", "1000000001"))
	must(t, r.Put(ctx, ps.sub("u2", "9.99"))) // two trusted ones: no store key, no conflict
	must(t, r.Put(ctx, ps.sub("u3", "9.99")))
}

func (ps premiumSuite) onePurchaseOneAccount(t *testing.T) {
	r := ps.newRepo(t)
	must(t, r.Put(ctx, ps.stored("u1", "1000000001")))
	must(t, r.Put(ctx, ps.stored("u1", "1000000001"))) // the holder again: fine
	err := r.Put(ctx, ps.stored("u2", "1000000001"))
	wantCode(t, err, core.KindConflict, "purchase_in_use")
	_, err = r.Get(ctx, "u2")
	wantKind(t, err, core.KindNotFound)
	other := ps.stored("u2", "1000000001")
	other.Store = premium.StorePlay // the same id at another store is another purchase
	must(t, r.Put(ctx, other))

	must(t, r.Put(ctx, ps.stored("u3", "2000000002")))
	_, err = r.Update(ctx, "u3", func(s *premium.Subscription) error { s.StoreRef = "1000000001"; return nil })
	wantCode(t, err, core.KindConflict, "purchase_in_use")
	got, _ := r.Get(ctx, "u3")
	ps.same(t, got, ps.stored("u3", "2000000002"))
}

func (ps premiumSuite) storeEventsOnce(t *testing.T) {
	r := ps.newRepo(t)
	must(t, r.Put(ctx, ps.stored("u1", "1000000001")))
	must(t, r.Put(ctx, ps.stored("u2", "2000000002")))
	end := now.Add(60 * 24 * time.Hour)
	renew := func(s *premium.Subscription) error { s.EndDate = end; return nil }
	applied, found, err := r.ApplyStoreEvent(ctx, "appstore:n1", "appstore:1000000001", now, renew)
	must(t, err)
	if !applied || !found {
		t.Fatalf("first delivery: applied %v found %v", applied, found)
	}
	got, _ := r.Get(ctx, "u1")
	if !got.EndDate.Equal(end) {
		t.Fatalf("end date %v, want %v", got.EndDate, end)
	}
	called := false
	applied, _, err = r.ApplyStoreEvent(ctx, "appstore:n1", "appstore:1000000001", now,
		func(*premium.Subscription) error { called = true; return nil })
	must(t, err)
	if applied || called {
		t.Fatal("a redelivered event was applied again")
	}
	applied, found, err = r.ApplyStoreEvent(ctx, "appstore:n2", "appstore:9999", now, renew)
	must(t, err)
	if !applied || found {
		t.Fatalf("unknown key: applied %v found %v", applied, found)
	}
	other, _ := r.Get(ctx, "u2")
	ps.same(t, other, ps.stored("u2", "2000000002"))

	boom := errors.New("boom")
	_, _, err = r.ApplyStoreEvent(ctx, "appstore:n3", "appstore:2000000002", now,
		func(s *premium.Subscription) error { s.Plan = "lost"; return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("fn error: %v", err)
	}
	applied, _, err = r.ApplyStoreEvent(ctx, "appstore:n3", "appstore:2000000002", now, renew)
	must(t, err)
	if !applied {
		t.Fatal("an event whose fn failed was recorded: its retry is lost")
	}
	other, _ = r.Get(ctx, "u2")
	if other.Plan != "9.99" || !other.EndDate.Equal(end) {
		t.Fatalf("after the retry: %+v", other)
	}
}

func (ps premiumSuite) byKey(t *testing.T) {
	r := ps.newRepo(t)
	must(t, r.Put(ctx, ps.stored("u1", "1000000001")))
	must(t, r.Put(ctx, ps.sub("u2", "9.99")))
	got, err := r.ByKey(ctx, "appstore:1000000001")
	must(t, err)
	ps.same(t, got, ps.stored("u1", "1000000001"))
	for _, key := range []string{"play:1000000001", "appstore:2", ""} {
		_, err = r.ByKey(ctx, key)
		wantKind(t, err, core.KindNotFound)
	}
}

func (ps premiumSuite) dueLapses(t *testing.T) {
	r := ps.newRepo(t)
	due := func(user string, at time.Time) premium.Subscription {
		s := ps.sub(user, "9.99")
		s.LapseDue = at
		must(t, r.Put(ctx, s))
		return s
	}
	late, early := due("u1", now.Add(2*time.Hour)), due("u2", now.Add(time.Hour))
	due("u3", now.Add(3*time.Hour))
	due("u4", time.Time{}) // none due
	got, err := r.DueLapses(ctx, now.Add(2*time.Hour), 10)
	must(t, err)
	if len(got) != 2 {
		t.Fatalf("due: %+v", got)
	}
	ps.same(t, got[0], early)
	ps.same(t, got[1], late)
	if got, _ = r.DueLapses(ctx, now.Add(2*time.Hour), 1); len(got) != 1 || got[0].UserID != "u2" {
		t.Fatalf("limited: %+v", got)
	}
	_, err = r.Update(ctx, "u2", func(s *premium.Subscription) error { s.LapseDue = time.Time{}; return nil })
	must(t, err)
	if got, _ = r.DueLapses(ctx, now.Add(2*time.Hour), 10); len(got) != 1 || got[0].UserID != "u1" {
		t.Fatalf("after one recorded: %+v", got)
	}
}
