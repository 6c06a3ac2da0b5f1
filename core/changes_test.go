package core_test

import (
	"testing"

	"tandem/core"
)

// ChangesIf makes each change of a write that decides in its transaction
// (a put, a put whose id the write makes, a delete) only when made says so
// after the write ran.
func TestChangesIfMakesTheChangesOnlyWhenTheWriteDid(t *testing.T) {
	t.Parallel()
	made := false
	cs := core.ChangesIf([]core.Change{
		core.Put("u1", core.ChangeMood, "m1", "plain"),
		core.Put("u1", core.ChangeMood, "m2", func() any { return "later" }),
		core.PutMade("u1", core.ChangeMood, func() (string, any) { return "m3", "made" }),
		core.Delete("u1", core.ChangeMood, "m4"),
	}, func() bool { return made })
	for _, c := range cs {
		if r := c.Resolved(); !r.Dropped() {
			t.Fatalf("%s made by a write that made nothing: %+v", c.ID, r)
		}
	}
	made = true
	want := []struct {
		id  string
		rec any
	}{{"m1", "plain"}, {"m2", "later"}, {"m3", "made"}, {"m4", nil}}
	for i, c := range cs {
		r := c.Resolved()
		if r.Dropped() || r.ID != want[i].id || r.Record != want[i].rec || r.Op != cs[i].Op {
			t.Fatalf("change %d: %+v, want %s %v", i, r, want[i].id, want[i].rec)
		}
	}
}
