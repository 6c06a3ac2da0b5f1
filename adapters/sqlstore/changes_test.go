package sqlstore_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"tandem/adapters/sqlstore"
	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/changes"
	"tandem/modules/partners"
)

// A write's changes cost two statements whatever its readers: one bump of
// their heads, one INSERT of every row. A record given to several readers
// as one value is rendered once; one given to each as their own (a
// question's view per partner) is rendered for each, and each reader's
// feed holds its own JSON.
func TestAWriteInsertsItsChangesInOneStatementAndRendersEachValueOnce(t *testing.T) {
	type view struct {
		ID     string   `json:"id"`
		Locked bool     `json:"locked"`
		Tags   []string `json:"tags"` // not comparable: compared in depth
	}
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		ctx := context.Background()
		db := newDB(t)
		renders := 0
		db.RecordChangesWith(changes.Recording{Clock: coretest.NewClock(time.Unix(1_800_000_000, 0)),
			Render: func(rec any) ([]byte, error) { renders++; return json.Marshal(rec) }})
		repo := sqlstore.NewChangeRepo(db)
		shared := view{ID: "m1", Tags: []string{"a"}}
		cs := []core.Change{
			core.Put("ann", core.ChangeMessage, "m1", shared),
			core.Put("bob", core.ChangeMessage, "m1", view{ID: "m1", Tags: []string{"a"}}), // equal, another slice
			core.Put("cat", core.ChangeMessage, "m1", shared),
			core.Put("ann", core.ChangeQuestion, "q1", view{ID: "q1"}),
			core.Put("bob", core.ChangeQuestion, "q1", view{ID: "q1", Locked: true}),
			core.Delete("cat", core.ChangeEvent, "e1"),
		}
		before := db.Statements()
		if err := repo.Append(ctx, cs); err != nil {
			t.Fatal(err)
		}
		if n := db.Statements() - before; n != 2 {
			t.Errorf("the write's changes took %d statements, want 2 (the heads, the rows)", n)
		}
		if renders != 3 {
			t.Errorf("rendered %d times, want 3 (the message once, each partner's question)", renders)
		}
		want := map[string][]string{
			"ann": {`{"id":"m1","locked":false,"tags":["a"]}`, `{"id":"q1","locked":false,"tags":null}`},
			"bob": {`{"id":"m1","locked":false,"tags":["a"]}`, `{"id":"q1","locked":true,"tags":null}`},
			"cat": {`{"id":"m1","locked":false,"tags":["a"]}`, ""},
		}
		for reader, datas := range want {
			feed, err := repo.Since(ctx, reader, 0, 10)
			if err != nil || len(feed) != len(datas) {
				t.Fatalf("%s's feed: %+v %v", reader, feed, err)
			}
			for i, data := range datas {
				if string(feed[i].Data) != data {
					t.Errorf("%s's change %d: %s, want %s", reader, i, feed[i].Data, data)
				}
			}
		}
	})
}

// A write whose changes are read through partnerships adds one statement,
// whatever their number: one read of every partnership they name, which
// drops the changes of one no longer standing (an unpair committed first).
func TestAWriteThroughPartnershipsReadsThemOnce(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		ctx := context.Background()
		db := newDB(t)
		db.RecordChangesWith(changes.Recording{Clock: coretest.NewClock(time.Unix(1_800_000_000, 0)),
			Render: func(rec any) ([]byte, error) { return json.Marshal(rec) }})
		repo, ships := sqlstore.NewChangeRepo(db), sqlstore.NewPartnerRepo(db)
		for _, p := range []partners.Partnership{{ID: "p1", UserA: "ann", UserB: "bob"}, {ID: "p2", UserA: "cat", UserB: "dan"}} {
			if err := ships.Pair(ctx, p.Users(), func(partners.Pairing) (partners.PairingChange, error) {
				return partners.PairingChange{Partnership: &p}, nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := ships.End(ctx, "dan"); err != nil {
			t.Fatal(err)
		}
		cs := append(core.Through("p1", core.Put("ann", core.ChangeMessage, "m1", "hi"), core.Put("bob", core.ChangeMessage, "m1", "hi")),
			core.Put("eve", core.ChangeMemory, "x1", "own"))
		cs = append(cs, core.Through("p2", core.Put("cat", core.ChangeMood, "d1", "ok"))...)
		before := db.Statements()
		if err := repo.Append(ctx, cs); err != nil {
			t.Fatal(err)
		}
		if n := db.Statements() - before; n != 3 {
			t.Errorf("the write's changes took %d statements, want 3 (the partnerships, the heads, the rows)", n)
		}
		for reader, want := range map[string]int{"ann": 1, "bob": 1, "eve": 1, "cat": 0} {
			if feed, err := repo.Since(ctx, reader, 0, 10); err != nil || len(feed) != want {
				t.Errorf("%s's feed: %+v %v, want %d changes", reader, feed, err, want)
			}
		}
	})
}
