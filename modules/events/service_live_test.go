// This file holds the test that an event's changes are announced live to
// whoever may read the event, and to no one else.

package events_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"tandem/core"
	"tandem/modules/events"
)

// TestEventChangesAreAnnouncedToWhoMayReadThem: an event's live events go
// to its owner and to the owner's current partner, each with the event as
// their own single read returns it (the partner's marked isPartnerEvent),
// and the partner is notified of an event added or changed. Never a
// stranger, an ex-partner, nor a partner who unpaired while the write was
// being stored; a refused write announces nothing.
func TestEventChangesAreAnnouncedToWhoMayReadThem(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	title := "Renamed"
	create := func(f *fixture) (string, error) {
		e, err := f.svc.Create(ctx, "ann", events.Draft{Title: "Dinner", StartDate: "2025-07-01"})
		return e.ID, err
	}
	update := func(user string) func(f *fixture) (string, error) {
		return func(f *fixture) (string, error) {
			_, err := f.svc.Update(ctx, user, "id-1", events.Patch{Title: &title})
			return "id-1", err
		}
	}
	remove := func(user string) func(f *fixture) (string, error) {
		return func(f *fixture) (string, error) { return "id-1", f.svc.Delete(ctx, user, "id-1") }
	}
	unpair := func(f *fixture) { f.partners.Unpair("ann", "bob") }
	cases := []struct {
		name    string
		setup   func(f *fixture) // ann's event id-1 exists; ann and bob are partners; eve and mal are
		during  func(f *fixture) // after the write is stored, before it is announced
		act     func(f *fixture) (string, error)
		live    string   // the event type; "" when refused
		readers []string // besides ann, the owner
		notes   []string
	}{
		{name: "created: the owner and the partner", act: create, live: "event.created",
			readers: []string{"bob"}, notes: []string{"bob<-ann:eventAdded"}},
		{name: "created unpaired: the owner only", setup: unpair, act: create, live: "event.created"},
		{name: "created with a new partner: the new one, not the ex-partner",
			setup: func(f *fixture) { unpair(f); f.partners.Pair("ann", "cid") }, act: create, live: "event.created",
			readers: []string{"cid"}, notes: []string{"cid<-ann:eventAdded"}},
		{name: "created as the couple unpairs: the owner only", during: unpair, act: create, live: "event.created"},
		{name: "updated: the owner and the partner", act: update("ann"), live: "event.updated",
			readers: []string{"bob"}, notes: []string{"bob<-ann:eventChanged"}},
		{name: "updated after unpairing: the owner only", setup: unpair, act: update("ann"), live: "event.updated"},
		{name: "updated as the couple unpairs: the owner only", during: unpair, act: update("ann"), live: "event.updated"},
		{name: "deleted: the owner and the partner, the id only", act: remove("ann"), live: "event.deleted",
			readers: []string{"bob"}},
		{name: "deleted after unpairing: the owner only", setup: unpair, act: remove("ann"), live: "event.deleted"},
		{name: "the partner's update is refused: nothing", act: update("bob")},
		{name: "the partner's delete is refused: nothing", act: remove("bob")},
		{name: "a stranger's update is refused: nothing", act: update("eve")},
		{name: "a stranger's delete is refused: nothing", act: remove("eve")},
		{name: "an invalid create: nothing", act: func(f *fixture) (string, error) {
			_, err := f.svc.Create(ctx, "ann", events.Draft{StartDate: "2025-07-01"})
			return "", err
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.partners.Pair("ann", "bob")
			f.partners.Pair("eve", "mal")
			f.create(t, "ann", "Lunch", "2025-06-20", "2025-06-20")
			f.bus.WantLive(t, core.Live{Type: "event.created", For: map[string]any{
				"ann": events.Read{Event: f.stored(t, "ann")[0]}, "bob": events.Read{Event: f.stored(t, "ann")[0], Partner: true}}})
			f.notes.Take()
			if tc.setup != nil {
				tc.setup(f)
			}
			if tc.during != nil {
				f.svc = events.NewService(hookedRepo{f.repo, func() { tc.during(f) }}, f.partners, f.zones, f.notes, f.bus,
					limiter(f.clock), events.Settings{}, f.clock, f.ids)
			}
			id, err := tc.act(f)
			if tc.live == "" {
				if err == nil {
					t.Fatal("accepted")
				}
				f.bus.WantLive(t)
				if got := f.notes.Take(); len(got) != 0 {
					t.Fatalf("notes %q", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := core.Live{Type: tc.live, For: map[string]any{}}
			for _, r := range append([]string{"ann"}, tc.readers...) {
				if tc.live == "event.deleted" {
					want.For[r] = core.Deleted{ID: id}
					continue
				}
				e, partner, err := f.svc.Get(ctx, r, id) // what the reader's own single read returns
				if err != nil {
					t.Fatalf("%s may not read it: %v", r, err)
				}
				want.For[r] = events.Read{Event: e, Partner: partner}
			}
			f.bus.WantLive(t, want)
			if tc.during == nil { // the feed's readers are those of the live event, resolved before the write
				var changes []string
				for _, r := range append([]string{"ann"}, tc.readers...) {
					op := "put"
					if tc.live == "event.deleted" {
						op = "delete"
					}
					changes = append(changes, r+" event "+id+" "+op)
				}
				if got := f.bus.Changes(); !slices.Equal(got[len(got)-len(changes):], changes) {
					t.Fatalf("the feed's changes %q, want last %q", got, changes)
				}
			}
			if got := f.notes.Take(); fmt.Sprint(got) != fmt.Sprint(tc.notes) {
				t.Fatalf("notes %q, want %q", got, tc.notes)
			}
		})
	}
}

// hookedRepo runs after once a create, update or delete is stored.
type hookedRepo struct {
	events.Repository
	after func()
}

func (r hookedRepo) Create(ctx context.Context, e events.Event) error {
	if err := r.Repository.Create(ctx, e); err != nil {
		return err
	}
	r.after()
	return nil
}

func (r hookedRepo) Update(ctx context.Context, id string, fn func(e *events.Event) error) (events.Event, error) {
	e, err := r.Repository.Update(ctx, id, fn)
	if err == nil {
		r.after()
	}
	return e, err
}

func (r hookedRepo) Delete(ctx context.Context, userID, id string) error {
	if err := r.Repository.Delete(ctx, userID, id); err != nil {
		return err
	}
	r.after()
	return nil
}
