package storetest

import (
	"context"
	"strings"
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/accounts"
	"tandem/modules/admin"
	"tandem/modules/images"
	"tandem/modules/partners"
	"tandem/modules/premium"
)

// AuditLog checks an admin.AuditLog implementation.
func AuditLog(t *testing.T, newRepo func(t *testing.T) admin.AuditLog) {
	ctx := context.Background()
	now := time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)
	entry := func(id string, at time.Time) admin.Entry {
		return admin.Entry{ID: id, ActorID: "a1", Actor: "boss@example.com", Action: "flag.update", Target: "flag:" + id,
			Before: `{"rollout":10}`, After: "null", Outcome: admin.OutcomePending, At: at}
	}
	ids := func(es []admin.Entry) string {
		out := make([]string, len(es))
		for i, e := range es {
			out[i] = e.ID
		}
		return strings.Join(out, ",")
	}

	t.Run("append, complete and read back every field; an id is taken once", func(t *testing.T) {
		r := newRepo(t)
		want := entry("e1", time.UnixMilli(1718452800123).UTC())
		want.Before = `{"name":"ü💬","n":[1,2]}` + strings.Repeat("x", 5000)
		must(t, r.Append(ctx, want))
		wantKind(t, r.Append(ctx, entry("e1", now)), core.KindConflict)
		must(t, r.Complete(ctx, "e1", admin.OutcomeDone, `{"rollout":50}`))
		must(t, r.Complete(ctx, "e1", admin.OutcomeDone, `{"rollout":50}`)) // the same again is no error
		wantKind(t, r.Complete(ctx, "nope", admin.OutcomeDone, "null"), core.KindNotFound)
		got, next, err := r.List(ctx, core.Page{})
		must(t, err)
		want.Outcome, want.After = admin.OutcomeDone, `{"rollout":50}`
		if len(got) != 1 || got[0] != want || next != "" {
			t.Fatalf("got %+v next %q", got, next)
		}
	})

	t.Run("the list is newest first, by time then id, paged", func(t *testing.T) {
		r := newRepo(t)
		for _, e := range []admin.Entry{entry("e1", now), entry("e2", now.Add(time.Minute)), entry("e3", now.Add(time.Minute)),
			entry("e4", now.Add(2*time.Minute))} {
			must(t, r.Append(ctx, e))
		}
		all, _, err := r.List(ctx, core.Page{})
		must(t, err)
		if ids(all) != "e4,e3,e2,e1" {
			t.Fatalf("all %s", ids(all))
		}
		p1, next, err := r.List(ctx, core.Page{Limit: 3})
		must(t, err)
		p2, next2, err := r.List(ctx, core.Page{Limit: 3, Cursor: next})
		must(t, err)
		if ids(p1) != "e4,e3,e2" || ids(p2) != "e1" || next2 != "" {
			t.Fatalf("pages %s | %s next %q", ids(p1), ids(p2), next2)
		}
		_, _, err = r.List(ctx, core.Page{Limit: 2, Cursor: "x!"})
		wantKind(t, err, core.KindInvalid)
	})
}

// StatsStores are the repositories the overview counts over, sharing one
// store (one database, or one process's memory).
type StatsStores struct {
	Accounts accounts.Repository
	Partners partners.Repository
	Premium  premium.Repository
	Images   images.Repository
	Stats    admin.Stats
}

// Stats checks an admin.Stats implementation against data stored through
// the other repositories.
func Stats(t *testing.T, newStores func(t *testing.T) StatsStores) {
	ctx := context.Background()
	now := time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)
	midnight := time.Date(2025, 6, 15, 0, 0, 0, 0, time.UTC)

	t.Run("empty", func(t *testing.T) {
		s := newStores(t)
		o, err := s.Stats.Overview(ctx, now, midnight)
		must(t, err)
		if o != (admin.Overview{}) {
			t.Fatalf("got %+v", o)
		}
	})

	t.Run("counts users, couples, premium in force and today's images", func(t *testing.T) {
		s := newStores(t)
		for _, id := range []string{"u1", "u2", "u3", "u4", "u5"} {
			must(t, s.Accounts.Create(ctx, accounts.Account{ID: id, Email: id + "@example.com", PasswordHash: "h", CreatedAt: now, UpdatedAt: now}))
		}
		must(t, s.Partners.PutConnection(ctx, partners.Connection{ID: "c1", UserID: "u1", Code: "code-one-1", CreatedAt: now,
			ExpiresAt: now.Add(time.Hour)}))
		must(t, link(s.Partners, partners.Partnership{ID: "p1", UserA: "u1", UserB: "u2", CreatedAt: now}, "code-one-1"))
		sub := func(user string, end time.Time, active, cancelled bool) premium.Subscription {
			return premium.Subscription{UserID: user, Plan: "monthly", StartDate: now.Add(-time.Hour), EndDate: end, IsActive: active,
				Cancelled: cancelled, Platform: core.PlatformIOS, LastRenewed: now, Meta: []byte("{}"), CreatedAt: now, UpdatedAt: now,
				State: premium.StateActive}
		}
		must(t, s.Premium.Put(ctx, sub("u1", now.Add(time.Hour), true, false)))
		must(t, s.Premium.Put(ctx, sub("u2", now.Add(-time.Minute), true, false))) // ended
		must(t, s.Premium.Put(ctx, sub("u3", now.Add(time.Hour), true, true)))     // cancelled
		must(t, s.Premium.Put(ctx, sub("u4", now.Add(time.Hour), false, false)))   // deactivated
		img := func(id string, at time.Time) images.Image {
			key := "u/u1/" + id + ".png"
			return images.Image{ID: id, UserID: "u1", GroupID: id, Key: key, URL: "http://files.test/files/" + key, Size: 10,
				CreatedAt: at, UpdatedAt: at, Width: 1, Height: 1}
		}
		must(t, s.Images.Create(ctx, []images.Image{img("i1", midnight.Add(-time.Millisecond))}, nil))
		must(t, s.Images.Create(ctx, []images.Image{img("i2", midnight)}, nil))
		must(t, s.Images.Create(ctx, []images.Image{img("i3", now)}, nil))
		o, err := s.Stats.Overview(ctx, now, midnight)
		must(t, err)
		if want := (admin.Overview{Users: 5, Couples: 1, ActivePremium: 1, UploadsToday: 2}); o != want {
			t.Fatalf("got %+v, want %+v", o, want)
		}
	})
}
