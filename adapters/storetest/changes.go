package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/changes"
	"tandem/modules/messages"
	"tandem/modules/partners"
)

// ChangeStore is a change feed store with one write of the same store to
// carry changes: a message added (a second add of one id fails, conflict);
// and the partnerships a change may be read through (core.Change.Via).
type ChangeStore struct {
	Repo     changes.Repository
	Messages messages.Repository
	Partners partners.Repository
}

// ChangeRecording is the recording the contract's stores are made with:
// records rendered by encoding/json, times from Clock.
func ChangeRecording(clock core.Clock) changes.Recording {
	return changes.Recording{Render: func(rec any) ([]byte, error) { return json.Marshal(rec) }, Clock: clock}
}

// ChangeRepository checks a changes.Repository and the recording of a
// write's changes in its store: newStore gets the recording to use.
func ChangeRepository(t *testing.T, newStore func(t *testing.T, rec changes.Recording) ChangeStore) {
	s := changeSuite{newStore: newStore}
	t.Run("append and read back in order, per reader, after a position, up to a limit", s.appendAndRead)
	t.Run("last is the reader's newest position, 0 without changes", s.last)
	t.Run("one write's changes for several readers, many for one, are each reader's in the order given", s.manyInOneWrite)
	t.Run("a write and its changes commit together; a failed write records none", s.withWrite)
	t.Run("purge deletes what is older than the bound and nothing else", s.purge)
	t.Run("a write's changes the write did not make (NoChange) are not recorded", s.dropped)
	t.Run("deleting a user deletes their changes only, and is idempotent", s.deleteUser)
	t.Run("a change read through a partnership is recorded while it stands, none once it ended", s.through)
}

type changeSuite struct {
	newStore func(t *testing.T, rec changes.Recording) ChangeStore
}

func (s changeSuite) store(t *testing.T) (ChangeStore, *coretest.FixedClock) {
	clock := coretest.NewClock(now)
	return s.newStore(t, ChangeRecording(clock)), clock
}

type record struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

func (s changeSuite) appendAndRead(t *testing.T) {
	st, _ := s.store(t)
	must(t, st.Repo.Append(ctx, []core.Change{
		core.Put("u1", "memory", "m1", record{"m1", "first"}),
		core.Put("u2", "memory", "m1", record{"m1", "first"}),
	}))
	must(t, st.Repo.Append(ctx, []core.Change{core.Delete("u1", "memory", "m1"), core.Put("u1", "mood", "d1", record{"d1", "ok"})}))
	got, err := st.Repo.Since(ctx, "u1", 0, 10)
	must(t, err)
	if len(got) != 3 {
		t.Fatalf("u1's feed: want 3 changes, got %+v", got)
	}
	want := []struct{ kind, id, op, data string }{
		{"memory", "m1", "put", `{"id":"m1","text":"first"}`},
		{"memory", "m1", "delete", ""},
		{"mood", "d1", "put", `{"id":"d1","text":"ok"}`},
	}
	for i, w := range want {
		c := got[i]
		if c.UserID != "u1" || c.Kind != w.kind || c.ID != w.id || string(c.Op) != w.op || string(c.Data) != w.data || !c.At.Equal(now) {
			t.Fatalf("change %d: want %+v, got %+v (data %s)", i, w, c, c.Data)
		}
		if i > 0 && c.Seq <= got[i-1].Seq {
			t.Fatalf("positions not increasing: %d after %d", c.Seq, got[i-1].Seq)
		}
	}
	after, err := st.Repo.Since(ctx, "u1", got[0].Seq, 1)
	must(t, err)
	if len(after) != 1 || after[0].Seq != got[1].Seq {
		t.Fatalf("after the first, limit 1: want the second, got %+v", after)
	}
	none, err := st.Repo.Since(ctx, "u1", got[2].Seq, 10)
	must(t, err)
	if len(none) != 0 {
		t.Fatalf("after the last: want none, got %+v", none)
	}
	u2, err := st.Repo.Since(ctx, "u2", 0, 10)
	must(t, err)
	if len(u2) != 1 || u2[0].UserID != "u2" {
		t.Fatalf("u2 sees only its own change, got %+v", u2)
	}
}

// manyInOneWrite records one write's changes for two readers, interleaved,
// and as many for one reader as a mark-all-read of a full inbox puts (more
// than one statement's worth on the SQL stores).
func (s changeSuite) manyInOneWrite(t *testing.T) {
	st, _ := s.store(t)
	cs := []core.Change{core.Put("u1", "message", "a", record{"a", "hi"}), core.Put("u2", "message", "a", record{"a", "hi"})}
	for i := range 1201 {
		id := fmt.Sprint("n", i)
		cs = append(cs, core.Put("u1", "notification", id, record{id, "read"}))
	}
	cs = append(cs, core.Delete("u2", "message", "b"), core.Delete("u1", "message", "b"))
	must(t, st.Repo.Append(ctx, cs))
	u1, err := st.Repo.Since(ctx, "u1", 0, 2000)
	must(t, err)
	if len(u1) != 1203 || u1[0].ID != "a" || u1[1202].ID != "b" || u1[1202].Op != core.ChangeDelete {
		t.Fatalf("u1's feed: want a, n0…n1200, b; got %d changes", len(u1))
	}
	for i, c := range u1[1:1202] {
		if want := fmt.Sprint("n", i); c.ID != want || string(c.Data) != fmt.Sprintf(`{"id":%q,"text":"read"}`, want) {
			t.Fatalf("u1's change %d: want %s's put, got %+v (data %s)", i+1, want, c, c.Data)
		}
	}
	u2, err := st.Repo.Since(ctx, "u2", 0, 10)
	must(t, err)
	if len(u2) != 2 || u2[0].ID != "a" || string(u2[0].Data) != `{"id":"a","text":"hi"}` || u2[1].ID != "b" {
		t.Fatalf("u2's feed: want a's put and b's delete, got %+v", u2)
	}
}

func (s changeSuite) last(t *testing.T) {
	st, _ := s.store(t)
	n, err := st.Repo.Last(ctx, "u1")
	must(t, err)
	if n != 0 {
		t.Fatalf("no changes: want 0, got %d", n)
	}
	must(t, st.Repo.Append(ctx, []core.Change{core.Delete("u1", "event", "e1"), core.Delete("u2", "event", "e1")}))
	got, err := st.Repo.Since(ctx, "u1", 0, 10)
	must(t, err)
	n, err = st.Repo.Last(ctx, "u1")
	must(t, err)
	if len(got) != 1 || n != got[0].Seq {
		t.Fatalf("last: want %+v's position, got %d", got, n)
	}
}

// withWrite adds a message carrying its changes, as a service does
// (core.WriteWithChanges; the memory store records them after the write,
// through the change log's listener).
func (s changeSuite) withWrite(t *testing.T) {
	st, _ := s.store(t)
	bus := core.NewBus(nil, func(l string, _ core.Event, err error) { t.Errorf("listener %s: %v", l, err) })
	bus.Subscribe(changes.NewService(st.Repo, changes.Settings{}, coretest.NewClock(now)).Listener())
	add := func(id string) error {
		m := messages.Message{ID: id, Scope: "solo:u1", AuthorID: "u1", Body: "hi", CreatedAt: now}
		cs := []core.Change{core.Put("u1", "message", id, record{id, "hi"}), core.Put("u2", "message", id, record{id, "hi"})}
		return core.WriteWithChanges(ctx, bus, cs, func(ctx context.Context) error { return st.Messages.Add(ctx, m) })
	}
	must(t, add("msg-1"))
	wantKind(t, add("msg-1"), core.KindConflict) // the write fails: its changes are not recorded
	for _, u := range []string{"u1", "u2"} {
		got, err := st.Repo.Since(ctx, u, 0, 10)
		must(t, err)
		if len(got) != 1 || got[0].ID != "msg-1" || string(got[0].Data) != `{"id":"msg-1","text":"hi"}` {
			t.Fatalf("%s: want the one message's put, got %+v", u, got)
		}
	}
}

func (s changeSuite) purge(t *testing.T) {
	st, clock := s.store(t)
	for i := range 5 {
		must(t, st.Repo.Append(ctx, []core.Change{core.Delete("u1", "image", fmt.Sprint("old", i))}))
	}
	clock.Advance(time.Hour)
	must(t, st.Repo.Append(ctx, []core.Change{core.Delete("u1", "image", "new")}))
	n, err := st.Repo.Purge(ctx, now.Add(time.Minute))
	must(t, err)
	if n != 5 {
		t.Fatalf("purge: want 5 deleted, got %d", n)
	}
	got, err := st.Repo.Since(ctx, "u1", 0, 10)
	must(t, err)
	if len(got) != 1 || got[0].ID != "new" {
		t.Fatalf("after the purge: want the new change only, got %+v", got)
	}
}

func (s changeSuite) dropped(t *testing.T) {
	st, _ := s.store(t)
	bus := core.NewBus(nil, func(l string, _ core.Event, err error) { t.Errorf("listener %s: %v", l, err) })
	bus.Subscribe(changes.NewService(st.Repo, changes.Settings{}, coretest.NewClock(now)).Listener())
	made := false // decided by the write, as a submit that connects or only waits
	cs := []core.Change{
		core.Put("u1", "pairing", "u1", func() any { return record{"u1", "always"} }),
		core.Put("u2", "pairing", "u2", func() any {
			if !made {
				return core.NoChange{}
			}
			return record{"u2", "made"}
		}),
	}
	m := messages.Message{ID: "msg-1", Scope: "solo:u1", AuthorID: "u1", Body: "hi", CreatedAt: now}
	must(t, core.WriteWithChanges(ctx, bus, cs, func(ctx context.Context) error { return st.Messages.Add(ctx, m) }))
	u1, err := st.Repo.Since(ctx, "u1", 0, 10)
	must(t, err)
	u2, err := st.Repo.Since(ctx, "u2", 0, 10)
	must(t, err)
	if len(u1) != 1 || string(u1[0].Data) != `{"id":"u1","text":"always"}` || len(u2) != 0 {
		t.Fatalf("want u1's put only, got %+v and %+v", u1, u2)
	}
	none := []core.Change{core.Put("u2", "pairing", "u2", func() any { return core.NoChange{} })}
	m.ID = "msg-2" // a write that makes none of its changes stands
	must(t, core.WriteWithChanges(ctx, bus, none, func(ctx context.Context) error { return st.Messages.Add(ctx, m) }))
	if u2, err = st.Repo.Since(ctx, "u2", 0, 10); err != nil || len(u2) != 0 {
		t.Fatalf("u2 after a write that made none: %+v %v", u2, err)
	}
}

func (s changeSuite) deleteUser(t *testing.T) {
	st, _ := s.store(t)
	must(t, st.Repo.Append(ctx, []core.Change{core.Delete("u1", "event", "e1"), core.Delete("u2", "event", "e1")}))
	must(t, st.Repo.Append(ctx, []core.Change{core.Delete("u1", "event", "e2")}))
	must(t, st.Repo.DeleteUser(ctx, "u1"))
	must(t, st.Repo.DeleteUser(ctx, "u1"))
	u1, err := st.Repo.Since(ctx, "u1", 0, 10)
	must(t, err)
	u2, err := st.Repo.Since(ctx, "u2", 0, 10)
	must(t, err)
	if len(u1) != 0 || len(u2) != 1 {
		t.Fatalf("after u1's deletion: u1 %+v, u2 %+v", u1, u2)
	}
	// the deleted user's feed starts again from nothing, in order
	must(t, st.Repo.Append(ctx, []core.Change{core.Delete("u1", "event", "e3")}))
	if u1, err = st.Repo.Since(ctx, "u1", 0, 10); err != nil || len(u1) != 1 || u1[0].ID != "e3" {
		t.Fatalf("a new change after the deletion: %+v, %v", u1, err)
	}
}

func (s changeSuite) through(t *testing.T) {
	st, _ := s.store(t)
	bus := core.NewBus(nil, func(l string, _ core.Event, err error) { t.Errorf("listener %s: %v", l, err) })
	bus.Subscribe(changes.NewService(st.Repo, changes.Settings{}, coretest.NewClock(now)).Listener())
	p := partners.Partnership{ID: "p-u1-u2", UserA: "u1", UserB: "u2", CreatedAt: now}
	must(t, st.Partners.Pair(ctx, p.Users(), func(partners.Pairing) (partners.PairingChange, error) {
		return partners.PairingChange{Partnership: &p}, nil
	}))
	send := func(id string) error { // a message of the thread to both, and a record of u3's own
		m := messages.Message{ID: id, Scope: p.ID, AuthorID: "u1", Body: "hi", CreatedAt: now}
		cs := append(core.Through(p.ID,
			core.Put("u1", "message", id, record{id, "hi"}), core.Put("u2", "message", id, record{id, "hi"})),
			core.Put("u3", "memory", id, record{id, "own"}))
		return core.WriteWithChanges(ctx, bus, cs, func(ctx context.Context) error { return st.Messages.Add(ctx, m) })
	}
	must(t, send("msg-1"))
	_, err := st.Partners.End(ctx, "u2")
	must(t, err)
	must(t, send("msg-2")) // looked its readers up before the end, commits after it
	// a change appended on its own (a write the store did not record) is checked as well
	must(t, st.Repo.Append(ctx, core.Through(p.ID, core.Put("u2", "message", "msg-3", record{"msg-3", "hi"}))))
	for u, want := range map[string][]string{"u1": {"msg-1"}, "u2": {"msg-1"}, "u3": {"msg-1", "msg-2"}} {
		got, err := st.Repo.Since(ctx, u, 0, 10)
		must(t, err)
		var ids []string
		for _, c := range got {
			ids = append(ids, c.ID)
		}
		if fmt.Sprint(ids) != fmt.Sprint(want) {
			t.Errorf("%s's feed: %v, want %v", u, ids, want)
		}
	}
}
