package storetest

import (
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
	s := milestoneSuite{newStore: newStore, day: core.Date{Year: 2025, Month: 6, Day: 15}}
	t.Run("a start is due at once, with the relationship", s.dueAtStart)
	t.Run("earliest first, then by id, up to the limit", s.dueOrder)
	t.Run("move only from where it is; an end drops the check", s.moveAndEnd)
	t.Run("a recheck sets it wherever it was", s.recheck)
	t.Run("one claim per user, relationship and date", s.claimOnce)
	t.Run("concurrent claims: exactly one wins", s.concurrentClaims)
	t.Run("deleting a member's relationships takes checks and claims along", s.deleteUser)
}

// milestoneSuite holds MilestoneRepository's helpers and subtests.
type milestoneSuite struct {
	newStore func(t *testing.T) RelationshipStore
	day      core.Date
}

func (milestoneSuite) start(t *testing.T, r RelationshipStore, id, partnership, a, b string, at time.Time) relationship.Relationship {
	t.Helper()
	rel := relationship.Relationship{ID: id, PartnershipID: partnership, Members: [2]string{a, b},
		StartDate: core.Date{Year: 2024, Month: 2, Day: 29}, Active: true, CreatedAt: at, UpdatedAt: at}
	must(t, r.Start(ctx, rel))
	return rel
}

func (milestoneSuite) due(t *testing.T, r RelationshipStore, at time.Time, limit int) string {
	t.Helper()
	cs, err := r.DueMilestones(ctx, at, limit)
	must(t, err)
	out := ""
	for _, c := range cs {
		out += fmt.Sprintf("%s@%s ", c.Relationship.ID, c.At.UTC().Format("15:04"))
	}
	return out
}

func (milestoneSuite) claim(t *testing.T, r RelationshipStore, user, rel string, d core.Date) bool {
	t.Helper()
	ok, err := r.ClaimMilestone(ctx, user, rel, d, now)
	must(t, err)
	return ok
}

func (s milestoneSuite) dueAtStart(t *testing.T) {
	r := s.newStore(t)
	want := s.start(t, r, "r1", "p1", "u1", "u2", now)
	if got := s.due(t, r, now.Add(-time.Millisecond), 10); got != "" {
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
}

func (s milestoneSuite) dueOrder(t *testing.T) {
	r := s.newStore(t)
	s.start(t, r, "r3", "p3", "u5", "u6", now)
	s.start(t, r, "r2", "p2", "u3", "u4", now.Add(-time.Hour))
	s.start(t, r, "r1", "p1", "u1", "u2", now)
	s.start(t, r, "r0", "p0", "u7", "u8", now.Add(time.Hour))
	if got := s.due(t, r, now, 10); got != "r2@11:00 r1@12:00 r3@12:00 " {
		t.Fatalf("due %q", got)
	}
	if got := s.due(t, r, now, 2); got != "r2@11:00 r1@12:00 " {
		t.Fatalf("limited %q", got)
	}
}

func (s milestoneSuite) moveAndEnd(t *testing.T) {
	r := s.newStore(t)
	s.start(t, r, "r1", "p1", "u1", "u2", now)
	later := now.Add(21 * time.Hour)
	moved, err := r.MoveMilestones(ctx, "r1", now.Add(time.Minute), later)
	must(t, err)
	if moved {
		t.Fatal("moved from an instant it was not at")
	}
	moved, err = r.MoveMilestones(ctx, "r1", now, later)
	must(t, err)
	if !moved || s.due(t, r, later.Add(-time.Millisecond), 10) != "" || s.due(t, r, later, 10) != "r1@09:00 " {
		t.Fatalf("moved %v, due %q", moved, s.due(t, r, later, 10))
	}
	moved, err = r.MoveMilestones(ctx, "ghost", now, later)
	must(t, err)
	if moved {
		t.Fatal("moved an unknown relationship")
	}

	_, err = r.End(ctx, "r1", s.day, now)
	must(t, err)
	if got := s.due(t, r, later.Add(1000*time.Hour), 10); got != "" {
		t.Fatalf("an ended relationship is still due: %q", got)
	}
	moved, err = r.MoveMilestones(ctx, "r1", later, now)
	must(t, err)
	must(t, r.RecheckMilestones(ctx, "r1", now))
	if moved || s.due(t, r, later.Add(1000*time.Hour), 10) != "" {
		t.Fatal("an ended relationship was given a check again")
	}
}

func (s milestoneSuite) recheck(t *testing.T) {
	r := s.newStore(t)
	s.start(t, r, "r1", "p1", "u1", "u2", now)
	moved, err := r.MoveMilestones(ctx, "r1", now, now.Add(100*24*time.Hour))
	must(t, err)
	if !moved {
		t.Fatal("not moved")
	}
	must(t, r.RecheckMilestones(ctx, "r1", now.Add(time.Hour)))
	if got := s.due(t, r, now.Add(time.Hour), 10); got != "r1@13:00 " {
		t.Fatalf("due %q", got)
	}
	must(t, r.RecheckMilestones(ctx, "ghost", now))
}

func (s milestoneSuite) claimOnce(t *testing.T) {
	r := s.newStore(t)
	s.start(t, r, "r1", "p1", "u1", "u2", now)
	if !s.claim(t, r, "u1", "r1", s.day) || s.claim(t, r, "u1", "r1", s.day) {
		t.Fatal("the first claim wins, the second loses")
	}
	if !s.claim(t, r, "u2", "r1", s.day) || !s.claim(t, r, "u1", "r1", s.day.AddDays(1)) || !s.claim(t, r, "u1", "r9", s.day) {
		t.Fatal("another user, date or relationship is another claim")
	}
}

func (s milestoneSuite) concurrentClaims(t *testing.T) {
	r := s.newStore(t)
	s.start(t, r, "r1", "p1", "u1", "u2", now)
	var wg sync.WaitGroup
	var won atomic.Int32
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := r.ClaimMilestone(ctx, "u1", "r1", s.day, now)
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
}

func (s milestoneSuite) deleteUser(t *testing.T) {
	r := s.newStore(t)
	s.start(t, r, "r1", "p1", "u1", "u2", now)
	s.start(t, r, "r2", "p2", "u3", "u4", now)
	for _, u := range []string{"u1", "u2"} {
		s.claim(t, r, u, "r1", s.day)
	}
	s.claim(t, r, "u3", "r2", s.day)
	must(t, r.DeleteByUser(ctx, "u2"))
	if got := s.due(t, r, now, 10); got != "r2@12:00 " {
		t.Fatalf("due %q", got)
	}
	if !s.claim(t, r, "u1", "r1", s.day) || !s.claim(t, r, "u2", "r1", s.day) || s.claim(t, r, "u3", "r2", s.day) {
		t.Fatal("the deleted relationship's claims are gone for both members, the others' kept")
	}
}
