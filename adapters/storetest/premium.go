package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/premium"
)

// PremiumRepository checks a premium.Repository implementation.
func PremiumRepository(t *testing.T, newRepo func(t *testing.T) premium.Repository) {
	ctx := context.Background()
	now := time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)
	sub := func(user, plan string) premium.Subscription {
		return premium.Subscription{UserID: user, Plan: plan, StartDate: now, EndDate: now.Add(30 * 24 * time.Hour),
			IsActive: true, BillingID: "b-" + user, Platform: core.PlatformIOS, LastRenewed: now,
			Meta: json.RawMessage(`{"store":"apple","n":[1,2]}`), CreatedAt: now, UpdatedAt: now}
	}
	same := func(t *testing.T, got, want premium.Subscription) {
		t.Helper()
		if got.UserID != want.UserID || got.Plan != want.Plan || !got.StartDate.Equal(want.StartDate) ||
			!got.EndDate.Equal(want.EndDate) || got.IsActive != want.IsActive || got.Cancelled != want.Cancelled ||
			got.BillingID != want.BillingID || got.Platform != want.Platform || !got.LastRenewed.Equal(want.LastRenewed) ||
			string(got.Meta) != string(want.Meta) || !got.CreatedAt.Equal(want.CreatedAt) || !got.UpdatedAt.Equal(want.UpdatedAt) {
			t.Fatalf("got  %+v\nwant %+v", got, want)
		}
	}

	t.Run("put, get, absent user", func(t *testing.T) {
		r := newRepo(t)
		s := sub("u1", "9.99")
		s.StartDate = time.UnixMilli(1718452800123).UTC() // milliseconds survive
		must(t, r.Put(ctx, s))
		got, err := r.Get(ctx, "u1")
		must(t, err)
		same(t, got, s)
		_, err = r.Get(ctx, "u2")
		wantKind(t, err, core.KindNotFound)
	})

	t.Run("put replaces every field but created_at", func(t *testing.T) {
		r := newRepo(t)
		must(t, r.Put(ctx, sub("u1", "9.99")))
		must(t, r.Put(ctx, sub("u2", "1.99")))
		later := now.Add(time.Hour)
		next := premium.Subscription{UserID: "u1", Plan: "19.99", StartDate: later, EndDate: later.Add(time.Hour),
			IsActive: true, LastRenewed: later, Meta: json.RawMessage(`{}`), CreatedAt: later, UpdatedAt: later}
		must(t, r.Put(ctx, next))
		got, _ := r.Get(ctx, "u1")
		next.CreatedAt = now
		same(t, got, next)
		other, _ := r.Get(ctx, "u2")
		same(t, other, sub("u2", "1.99"))
	})

	t.Run("update applies fn atomically; an error writes nothing", func(t *testing.T) {
		r := newRepo(t)
		must(t, r.Put(ctx, sub("u1", "9.99")))
		out, err := r.Update(ctx, "u1", func(s *premium.Subscription) error {
			s.IsActive, s.Cancelled, s.Plan = false, true, "4.99"
			s.Meta = json.RawMessage(`{"k":"v"}`)
			s.UpdatedAt = now.Add(time.Minute)
			return nil
		})
		must(t, err)
		want := sub("u1", "4.99")
		want.IsActive, want.Cancelled, want.Meta, want.UpdatedAt = false, true, json.RawMessage(`{"k":"v"}`), now.Add(time.Minute)
		same(t, out, want)
		got, _ := r.Get(ctx, "u1")
		same(t, got, want)

		boom := errors.New("boom")
		_, err = r.Update(ctx, "u1", func(s *premium.Subscription) error { s.Plan = "lost"; return boom })
		if !errors.Is(err, boom) {
			t.Fatalf("fn error: %v", err)
		}
		got, _ = r.Get(ctx, "u1")
		same(t, got, want)

		called := false
		_, err = r.Update(ctx, "ghost", func(*premium.Subscription) error { called = true; return nil })
		wantKind(t, err, core.KindNotFound)
		if called {
			t.Fatal("fn called without a subscription")
		}
	})

	t.Run("delete is idempotent and touches only the user", func(t *testing.T) {
		r := newRepo(t)
		must(t, r.Put(ctx, sub("u1", "9.99")))
		must(t, r.Put(ctx, sub("u2", "9.99")))
		must(t, r.Delete(ctx, "u1"))
		must(t, r.Delete(ctx, "u1"))
		_, err := r.Get(ctx, "u1")
		wantKind(t, err, core.KindNotFound)
		_, err = r.Get(ctx, "u2")
		must(t, err)
	})
}
