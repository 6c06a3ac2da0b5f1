// This file holds the test that a memory's changes are announced live to
// its owner only.

package memories_test

import (
	"context"
	"testing"

	"tandem/core"
	"tandem/modules/memories"
)

// TestMemoryChangesAreAnnouncedToTheOwnerOnly: a memory is private, so its
// live events (created, updated, deleted) go to its owner alone, with the
// memory as the owner's own read shows it; never to the partner (who hears
// of a new memory only through the activity notification), an ex-partner
// or a stranger; and a refused change announces nothing.
func TestMemoryChangesAreAnnouncedToTheOwnerOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	title := "Renamed"
	cases := []struct {
		name  string
		setup func(f *fixture) // ann's memory "m" exists (id-1); ann and bob are partners unless setup says otherwise
		act   func(f *fixture) (string, error)
		live  string // the event type; "" for none
		gone  bool   // the record is a core.Deleted
	}{
		{name: "created, paired: the owner, not the partner",
			act: func(f *fixture) (string, error) {
				m, err := f.svc.Create(ctx, "ann", memories.Draft{Title: "Beach", Date: "2025-06-01"})
				return m.ID, err
			}, live: "memory.created"},
		{name: "created after unpairing: the owner, not the ex-partner",
			setup: func(f *fixture) { f.partners.Unpair("ann", "bob") },
			act: func(f *fixture) (string, error) {
				m, err := f.svc.Create(ctx, "ann", memories.Draft{Title: "Beach", Date: "2025-06-01"})
				return m.ID, err
			}, live: "memory.created"},
		{name: "updated: the owner",
			act: func(f *fixture) (string, error) {
				_, err := f.svc.Update(ctx, "ann", "id-1", memories.Patch{Title: &title})
				return "id-1", err
			}, live: "memory.updated"},
		{name: "deleted: the owner, with the id only",
			act:  func(f *fixture) (string, error) { return "id-1", f.svc.Delete(ctx, "ann", "id-1") },
			live: "memory.deleted", gone: true},
		{name: "the partner's update is refused: nothing",
			act: func(f *fixture) (string, error) {
				_, err := f.svc.Update(ctx, "bob", "id-1", memories.Patch{Title: &title})
				return "", err
			}},
		{name: "the partner's delete is refused: nothing",
			act: func(f *fixture) (string, error) { return "", f.svc.Delete(ctx, "bob", "id-1") }},
		{name: "a stranger's delete is refused: nothing",
			act: func(f *fixture) (string, error) { return "", f.svc.Delete(ctx, "eve", "id-1") }},
		{name: "an invalid create: nothing",
			act: func(f *fixture) (string, error) {
				_, err := f.svc.Create(ctx, "ann", memories.Draft{Title: "Beach"})
				return "", err
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.partners.Pair("ann", "bob")
			f.create(t, "ann", "Lisbon", "2025-06-01")
			f.bus.WantLive(t, core.Live{Type: "memory.created", For: map[string]any{"ann": f.stored(t, "ann")[0]}})
			if tc.setup != nil {
				tc.setup(f)
			}
			id, err := tc.act(f)
			if tc.live == "" {
				if err == nil {
					t.Fatal("accepted")
				}
				f.bus.WantLive(t)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var record any = core.Deleted{ID: id}
			if !tc.gone {
				m, err := f.svc.Get(ctx, "ann", id) // what the owner's own read shows
				if err != nil {
					t.Fatal(err)
				}
				record = m
			}
			f.bus.WantLive(t, core.Live{Type: tc.live, For: map[string]any{"ann": record}})
		})
	}
}
