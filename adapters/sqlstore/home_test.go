package sqlstore_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"tandem/adapters/sqlstore"
	"tandem/core"
	"tandem/modules/accounts"
	"tandem/modules/messages"
	"tandem/modules/notifications"
	"tandem/modules/partners"
	"tandem/modules/premium"
	"tandem/modules/relationship"
)

// seedHome writes a couple with every part the home read joins (accounts,
// partnership, a subscription, a relationship, a message, an unread
// notification) and returns the caller's id.
func seedHome(t *testing.T, db *sqlstore.DB) string {
	t.Helper()
	ctx, now := context.Background(), time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	acc, part := sqlstore.NewAccountRepo(db), sqlstore.NewPartnerRepo(db)
	for _, id := range []string{"u1", "u2"} {
		must(t, acc.Create(ctx, accounts.Account{ID: id, Email: id + "@x.io", PasswordHash: "h", CreatedAt: now, UpdatedAt: now}))
	}
	ship := partners.Partnership{ID: "p1", UserA: "u1", UserB: "u2", CreatedAt: now}
	must(t, part.Pair(ctx, ship.Users(), func(partners.Pairing) (partners.PairingChange, error) {
		return partners.PairingChange{Partnership: &ship}, nil // a seed: no rule to apply
	}))
	must(t, sqlstore.NewPremiumRepo(db).Put(ctx, premium.Subscription{UserID: "u2", Plan: "9.99", StartDate: now,
		EndDate: now.AddDate(0, 1, 0), IsActive: true, Meta: json.RawMessage(`{}`), CreatedAt: now, UpdatedAt: now}))
	must(t, sqlstore.NewRelationshipRepo(db).Start(ctx, relationship.Relationship{ID: "r1", PartnershipID: "p1",
		Members: [2]string{"u1", "u2"}, StartDate: core.DateOf(now), Active: true, CreatedAt: now, UpdatedAt: now}))
	msgs := sqlstore.NewMessageRepo(db)
	must(t, msgs.Add(ctx, messages.Message{ID: "m1", Scope: "p1", AuthorID: "u2", Body: "first", CreatedAt: now}))
	must(t, msgs.Add(ctx, messages.Message{ID: "m2", Scope: "p1", AuthorID: "u2", Body: "newest", CreatedAt: now.Add(time.Second)}))
	must(t, sqlstore.NewNotificationRepo(db).AddNotification(ctx, notifications.Notification{ID: "n1", UserID: "u1",
		Title: "t", Message: "m", Category: "messages", CreatedAt: now}))
	return "u1"
}

// TestHomePrefetchIsOneStatement: the home read model fetches in one
// statement, and a module then answers from it without reading (here the
// thread's newest message, through a message repository that cannot be
// read and a partnership service with no repository at all).
func TestHomePrefetchIsOneStatement(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		db := newDB(t)
		user := seedHome(t, db)
		ctx := core.WithReadMemo(context.Background())
		before := db.Statements()
		must(t, sqlstore.NewHomeRepo(db).Prefetch(ctx, user))
		if n := db.Statements() - before; n != 1 {
			t.Fatalf("prefetch ran %d statements", n)
		}
		svc := messages.NewService(unreadable{}, partners.NewService(nil, nil, nil, partners.Settings{}, nil, nil, nil), nil, nil, nil,
			messages.Settings{}, core.SystemClock{}, nil)
		m, ok, err := svc.Latest(ctx, user)
		if err != nil || !ok || m.ID != "m2" || m.Body != "newest" || m.Scope != "p1" {
			t.Fatalf("latest from the memo: %+v %v %v", m, ok, err)
		}
		must(t, sqlstore.NewHomeRepo(db).Prefetch(core.WithReadMemo(context.Background()), "nobody"))
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// unreadable is a message repository whose every read fails.
type unreadable struct{ messages.Repository }

func (unreadable) List(context.Context, string, core.Page) ([]messages.Message, string, error) {
	return nil, "", core.Unavailable("down", "sqlstore.unreadable", "unreadable")
}
