// This file holds the tests of reading events: a user's list by date in
// pages, a get of one's own or the partner's event, and the partner left
// unconsulted for one's own.

package events_test

import (
	"context"
	"testing"
	"time"

	"go.uber.org/mock/gomock"

	"tandem/adapters/memory"
	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/events"
)

func TestListIsOwnEventsByDateInPages(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	evs, next, err := f.svc.List(ctx, "u1", core.Page{})
	if err != nil || evs == nil || len(evs) != 0 || next != "" {
		t.Fatalf("empty: %v %q %v", evs, next, err)
	}
	f.create(t, "u1", "c", "2025-03-01", "2025-03-01")
	f.create(t, "u1", "a", "2024-12-31", "2025-01-02")
	f.create(t, "u1", "b", "2025-01-15", "2025-01-15")
	f.create(t, "u1", "d", "2025-03-01", "2025-03-02") // same day as c, created later
	f.partners.Pair("u1", "u2")
	f.create(t, "u2", "theirs", "2025-01-01", "2025-01-01")

	evs, next, err = f.svc.List(ctx, "u1", core.Page{})
	if err != nil || titles(evs) != "a,b,c,d" || next != "" {
		t.Fatalf("list %s %q %v", titles(evs), next, err)
	}
	var seen []events.Event
	page := core.Page{Limit: 3}
	for {
		evs, next, err := f.svc.List(ctx, "u1", page)
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, evs...)
		if next == "" {
			break
		}
		page.Cursor = next
	}
	if titles(seen) != "a,b,c,d" {
		t.Fatalf("pages %s", titles(seen))
	}
	_, _, err = f.svc.List(ctx, "u1", core.Page{Limit: 3, Cursor: "forged"})
	coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
}

func TestGetOwnOrThePartnersOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	mine := f.create(t, "me", "mine", "2025-07-01", "2025-07-01")
	theirs := f.create(t, "partner", "theirs", "2025-07-02", "2025-07-02")
	strangers := f.create(t, "stranger", "strangers", "2025-07-03", "2025-07-03")
	f.partners.Pair("me", "partner")

	cases := []struct {
		name        string
		user, id    string
		wantPartner bool
		kind        core.Kind
		code        string // "" when readable
	}{
		{name: "my own", user: "me", id: mine.ID},
		{name: "my partner's", user: "me", id: theirs.ID, wantPartner: true},
		{name: "the partner reads mine", user: "partner", id: mine.ID, wantPartner: true},
		{name: "a stranger's", user: "me", id: strangers.ID, kind: core.KindNotFound, code: "event_not_found"},
		{name: "the stranger reads mine", user: "stranger", id: mine.ID, kind: core.KindNotFound, code: "event_not_found"},
		{name: "no such event", user: "me", id: "ghost", kind: core.KindNotFound, code: "event_not_found"},
		{name: "no event id", user: "me", id: "", kind: core.KindInvalid, code: "invalid_request"},
		{name: "no user id", user: "", id: mine.ID, kind: core.KindInvalid, code: "invalid_request"},
	}
	for _, tc := range cases {
		e, partner, err := f.svc.Get(ctx, tc.user, tc.id)
		if tc.code != "" {
			if err == nil || core.As(err).Kind != tc.kind || core.As(err).Code != tc.code {
				t.Fatalf("%s: %v", tc.name, err)
			}
			continue
		}
		if err != nil || e.ID != tc.id || partner != tc.wantPartner {
			t.Fatalf("%s: %+v %v %v", tc.name, e, partner, err)
		}
	}

	f.partners.Unpair("me", "partner") // the partner's events are no longer readable
	_, _, err := f.svc.Get(ctx, "me", theirs.ID)
	coretest.WantErr(t, err, core.KindNotFound, "event_not_found")
}

// The interactions below are the point of their tests, so they use gomock.

func TestOwnEventDoesNotConsultThePartner(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ctrl := gomock.NewController(t)
	partners := NewMockPartners(ctrl) // any unexpected call fails the test
	repo := memory.NewEventRepo()
	clock := coretest.NewClock(time.Time{})
	svc := events.NewService(repo, partners, coretest.NewZones(), &coretest.Activities{}, &coretest.Events{},
		limiter(clock), events.Settings{}, clock, &coretest.SeqIDs{})
	// Each write asks for the owner's partner twice: before it is stored,
	// for the readers of its change feed (and the partnership they read it
	// through), and after, to announce it (create, update, delete); the
	// rules never do.
	partners.EXPECT().PartnershipOf(gomock.Any(), "me").Return("", "", false, nil).Times(3)
	partners.EXPECT().PartnerOf(gomock.Any(), "me").Return("", false, nil).Times(3)
	mine, err := svc.Create(ctx, "me", events.Draft{Title: "mine", StartDate: "2025-07-01"})
	if err != nil {
		t.Fatal(err)
	}
	if _, partner, err := svc.Get(ctx, "me", mine.ID); err != nil || partner {
		t.Fatalf("%v %v", partner, err)
	}
	// Updating and deleting one's own event never needs the partner either.
	title := "renamed"
	if _, err := svc.Update(ctx, "me", mine.ID, events.Patch{Title: &title}); err != nil {
		t.Fatal(err)
	}
	// Someone else's event: the partner is asked exactly once.
	partners.EXPECT().PartnerOf(gomock.Any(), "other").Return("", false, nil).Times(1)
	_, _, err = svc.Get(ctx, "other", mine.ID)
	coretest.WantErr(t, err, core.KindNotFound, "event_not_found")
	if err := svc.Delete(ctx, "me", mine.ID); err != nil {
		t.Fatal(err)
	}
}
