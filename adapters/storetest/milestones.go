package storetest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/relationship"
)

// RelationshipStore is the relationship repository with its milestone
// checks: one store, since Start and End write both.
type RelationshipStore interface {
	relationship.Repository
	relationship.MilestoneRepository
}

// MilestoneRepository checks the relationship.MilestoneRepository of a
// RelationshipStore.
func MilestoneRepository(t *testing.T, newStore func(t *testing.T) RelationshipStore) {
	ctx := context.Background()
	now := time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)
	day := core.Date{Year: 2025, Month: 6, Day: 15}
	start := func(t *testing.T, r RelationshipStore, id, partnership, a, b string, at time.Time) relationship.Relationship {
		t.Helper()
		rel := relationship.Relationship{ID: id, PartnershipID: partnership, Members: [2]string{a, b},
			StartDate: core.Date{Year: 2024, Month: 2, Day: 29}, Active: true, CreatedAt: at, UpdatedAt: at}
		must(t, r.Start(ctx, rel))
		return rel
	}
	due := func(t *testing.T, r RelationshipStore, at time.Time, limit int) string {
		t.Helper()
		cs, err := r.DueMilestones(ctx, at, limit)
		must(t, err)
		out := ""
		for _, c := range cs {
			out += fmt.Sprintf("%s@%s ", c.Relationship.ID, c.At.UTC().Format("15:04"))
		}
		return out
	}
	claim := func(t *testing.T, r RelationshipStore, user, rel string, d core.Date) bool {
		t.Helper()
		ok, err := r.ClaimMilestone(ctx, user, rel, d, now)
		must(t, err)
		return ok
	}

	t.Run("a start is due at once, with the relationship", func(t *testing.T) {
		r := newStore(t)
		want := start(t, r, "r1", "p1", "u1", "u2", now)
		if got := due(t, r, now.Add(-time.Millisecond), 10); got != "" {
			t.Fatalf("due before its start: %s", got)
		}
		cs, err := r.DueMilestones(ctx, now, 10)
		must(t, err)
		if len(cs) != 1 || !cs[0].At.Equal(now) {
			t.Fatalf("due %+v", cs)
		}
		got := cs[0].Relationship
		if got.ID != want.ID || got.PartnershipID != want.PartnershipID || got.Members != want.Members ||
			got.StartDate != want.StartDate || !got.Active || !got.EndDate.IsZero() || !got.CreatedAt.Equal(want.CreatedAt) {
			t.Fatalf("got  %+v\nwant %+v", got, want)
		}
	})

	t.Run("earliest first, then by id, up to the limit", func(t *testing.T) {
		r := newStore(t)
		start(t, r, "r3", "p3", "u5", "u6", now)
		start(t, r, "r2", "p2", "u3", "u4", now.Add(-time.Hour))
		start(t, r, "r1", "p1", "u1", "u2", now)
		start(t, r, "r0", "p0", "u7", "u8", now.Add(time.Hour))
		if got := due(t, r, now, 10); got != "r2@11:00 r1@12:00 r3@12:00 " {
			t.Fatalf("due %q", got)
		}
		if got := due(t, r, now, 2); got != "r2@11:00 r1@12:00 " {
			t.Fatalf("limited %q", got)
		}
	})

	t.Run("move only from where it is; an end drops the check", func(t *testing.T) {
		r := newStore(t)
		start(t, r, "r1", "p1", "u1", "u2", now)
		later := now.Add(21 * time.Hour)
		moved, err := r.MoveMilestones(ctx, "r1", now.Add(time.Minute), later)
		must(t, err)
		if moved {
			t.Fatal("moved from an instant it was not at")
		}
		moved, err = r.MoveMilestones(ctx, "r1", now, later)
		must(t, err)
		if !moved || due(t, r, later.Add(-time.Millisecond), 10) != "" || due(t, r, later, 10) != "r1@09:00 " {
			t.Fatalf("moved %v, due %q", moved, due(t, r, later, 10))
		}
		moved, err = r.MoveMilestones(ctx, "ghost", now, later)
		must(t, err)
		if moved {
			t.Fatal("moved an unknown relationship")
		}

		_, err = r.End(ctx, "r1", day, now)
		must(t, err)
		if got := due(t, r, later.Add(1000*time.Hour), 10); got != "" {
			t.Fatalf("an ended relationship is still due: %q", got)
		}
		moved, err = r.MoveMilestones(ctx, "r1", later, now)
		must(t, err)
		must(t, r.RecheckMilestones(ctx, "r1", now))
		if moved || due(t, r, later.Add(1000*time.Hour), 10) != "" {
			t.Fatal("an ended relationship was given a check again")
		}
	})

	t.Run("a recheck sets it wherever it was", func(t *testing.T) {
		r := newStore(t)
		start(t, r, "r1", "p1", "u1", "u2", now)
		moved, err := r.MoveMilestones(ctx, "r1", now, now.Add(100*24*time.Hour))
		must(t, err)
		if !moved {
			t.Fatal("not moved")
		}
		must(t, r.RecheckMilestones(ctx, "r1", now.Add(time.Hour)))
		if got := due(t, r, now.Add(time.Hour), 10); got != "r1@13:00 " {
			t.Fatalf("due %q", got)
		}
		must(t, r.RecheckMilestones(ctx, "ghost", now))
	})

	t.Run("one claim per user, relationship and date", func(t *testing.T) {
		r := newStore(t)
		start(t, r, "r1", "p1", "u1", "u2", now)
		if !claim(t, r, "u1", "r1", day) || claim(t, r, "u1", "r1", day) {
			t.Fatal("the first claim wins, the second loses")
		}
		if !claim(t, r, "u2", "r1", day) || !claim(t, r, "u1", "r1", day.AddDays(1)) || !claim(t, r, "u1", "r9", day) {
			t.Fatal("another user, date or relationship is another claim")
		}
	})

	t.Run("concurrent claims: exactly one wins", func(t *testing.T) {
		r := newStore(t)
		start(t, r, "r1", "p1", "u1", "u2", now)
		var wg sync.WaitGroup
		var won atomic.Int32
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ok, err := r.ClaimMilestone(ctx, "u1", "r1", day, now)
				if err != nil {
					t.Error(err)
				}
				if ok {
					won.Add(1)
				}
			}()
		}
		wg.Wait()
		if won.Load() != 1 {
			t.Fatalf("%d claims won", won.Load())
		}
	})

	t.Run("deleting a member's relationships takes checks and claims along", func(t *testing.T) {
		r := newStore(t)
		start(t, r, "r1", "p1", "u1", "u2", now)
		start(t, r, "r2", "p2", "u3", "u4", now)
		for _, u := range []string{"u1", "u2"} {
			claim(t, r, u, "r1", day)
		}
		claim(t, r, "u3", "r2", day)
		must(t, r.DeleteByUser(ctx, "u2"))
		if got := due(t, r, now, 10); got != "r2@12:00 " {
			t.Fatalf("due %q", got)
		}
		if !claim(t, r, "u1", "r1", day) || !claim(t, r, "u2", "r1", day) || claim(t, r, "u3", "r2", day) {
			t.Fatal("the deleted relationship's claims are gone for both members, the others' kept")
		}
	})
}
