package storetest

import (
	"sync"
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/relationship"
)

// RelationshipRepository checks a relationship.Repository implementation.
func RelationshipRepository(t *testing.T, newRepo func(t *testing.T) relationship.Repository) {
	rs := relationshipSuite{newRepo: newRepo}
	t.Run("start, latest, absent partnership", rs.startAndLatest)
	t.Run("one active relationship per partnership", rs.oneActive)
	t.Run("concurrent starts leave exactly one active", rs.concurrentStarts)
	t.Run("end once; then a new one may start and is the latest", rs.endThenStart)
	t.Run("the active one is the latest even when created in the same millisecond", rs.activeIsLatest)
	t.Run("list and delete by either member", rs.listAndDelete)
}

// relationshipSuite holds RelationshipRepository's helpers and subtests.
type relationshipSuite struct {
	newRepo func(t *testing.T) relationship.Repository
}

func (relationshipSuite) rel(id, partnership, a, b, start string, at time.Time) relationship.Relationship {
	return relationship.Relationship{ID: id, PartnershipID: partnership, Members: [2]string{a, b},
		StartDate: date(start), Active: true, CreatedAt: at, UpdatedAt: at}
}

func (relationshipSuite) same(t *testing.T, got, want relationship.Relationship) {
	t.Helper()
	if got.ID != want.ID || got.PartnershipID != want.PartnershipID || got.Members != want.Members ||
		got.StartDate != want.StartDate || got.EndDate != want.EndDate || got.Active != want.Active ||
		!got.CreatedAt.Equal(want.CreatedAt) || !got.UpdatedAt.Equal(want.UpdatedAt) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
}

func (rs relationshipSuite) startAndLatest(t *testing.T) {
	r := rs.newRepo(t)
	a := rs.rel("r1", "p1", "u1", "u2", "2024-02-29", now)
	must(t, r.Start(ctx, a))
	got, err := r.Latest(ctx, "p1")
	must(t, err)
	rs.same(t, got, a)
	_, err = r.Latest(ctx, "p2")
	wantKind(t, err, core.KindNotFound)
}

func (rs relationshipSuite) oneActive(t *testing.T) {
	r := rs.newRepo(t)
	must(t, r.Start(ctx, rs.rel("r1", "p1", "u1", "u2", "2024-01-01", now)))
	wantKind(t, r.Start(ctx, rs.rel("r2", "p1", "u1", "u2", "2024-05-01", now)), core.KindConflict)
	must(t, r.Start(ctx, rs.rel("r3", "p2", "u3", "u4", "2024-01-01", now))) // another couple
	got, _ := r.Latest(ctx, "p1")
	if got.ID != "r1" {
		t.Fatalf("latest %+v", got)
	}
}

func (rs relationshipSuite) concurrentStarts(t *testing.T) {
	r := rs.newRepo(t)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = r.Start(ctx, rs.rel("r"+string(rune('a'+i)), "p1", "u1", "u2", "2024-01-01", now))
		}()
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case !core.IsKind(err, core.KindConflict):
			t.Fatalf("want conflict, got %v", err)
		}
	}
	if ok != 1 {
		t.Fatalf("%d starts succeeded", ok)
	}
}

func (rs relationshipSuite) endThenStart(t *testing.T) {
	r := rs.newRepo(t)
	first := rs.rel("r1", "p1", "u1", "u2", "2024-02-14", now)
	must(t, r.Start(ctx, first))
	later := now.Add(time.Hour)
	ended, err := r.End(ctx, "r1", date("2025-02-28"), later)
	must(t, err)
	first.Active, first.EndDate, first.UpdatedAt = false, date("2025-02-28"), later
	rs.same(t, ended, first)
	got, _ := r.Latest(ctx, "p1")
	rs.same(t, got, first)
	_, err = r.End(ctx, "r1", date("2025-03-01"), later)
	wantKind(t, err, core.KindNotFound)
	_, err = r.End(ctx, "ghost", date("2025-03-01"), later)
	wantKind(t, err, core.KindNotFound)

	second := rs.rel("r2", "p1", "u1", "u2", "2025-03-01", later)
	must(t, r.Start(ctx, second))
	got, _ = r.Latest(ctx, "p1")
	rs.same(t, got, second)
	_, err = r.End(ctx, "r2", date("2025-03-02"), later.Add(time.Hour))
	must(t, err)
	got, _ = r.Latest(ctx, "p1")
	if got.ID != "r2" {
		t.Fatalf("latest ended %+v", got)
	}
}

func (rs relationshipSuite) activeIsLatest(t *testing.T) {
	r := rs.newRepo(t)
	must(t, r.Start(ctx, rs.rel("r9", "p1", "u1", "u2", "2024-01-01", now)))
	_, err := r.End(ctx, "r9", date("2024-06-01"), now)
	must(t, err)
	must(t, r.Start(ctx, rs.rel("r1", "p1", "u1", "u2", "2024-07-01", now)))
	got, _ := r.Latest(ctx, "p1")
	if got.ID != "r1" || !got.Active {
		t.Fatalf("latest %+v", got)
	}
}

func (rs relationshipSuite) listAndDelete(t *testing.T) {
	r := rs.newRepo(t)
	must(t, r.Start(ctx, rs.rel("r1", "p1", "u1", "u2", "2023-01-01", now)))
	_, err := r.End(ctx, "r1", date("2024-01-01"), now)
	must(t, err)
	must(t, r.Start(ctx, rs.rel("r2", "p2", "u0", "u1", "2024-02-01", now.Add(time.Hour))))
	must(t, r.Start(ctx, rs.rel("r3", "p3", "u3", "u4", "2024-02-01", now)))
	list, err := r.ListByUser(ctx, "u1")
	must(t, err)
	if len(list) != 2 || list[0].ID != "r2" || list[1].ID != "r1" || list[1].EndDate != date("2024-01-01") {
		t.Fatalf("list %+v", list)
	}
	none, err := r.ListByUser(ctx, "nobody")
	must(t, err)
	if len(none) != 0 {
		t.Fatalf("none %+v", none)
	}
	must(t, r.DeleteByUser(ctx, "u1"))
	must(t, r.DeleteByUser(ctx, "u1"))
	if list, _ := r.ListByUser(ctx, "u2"); len(list) != 0 {
		t.Fatalf("the couple's record is gone for both: %+v", list)
	}
	_, err = r.Latest(ctx, "p2")
	wantKind(t, err, core.KindNotFound)
	_, err = r.Latest(ctx, "p3")
	must(t, err)
}
