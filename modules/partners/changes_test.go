package partners_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"tandem/core"
)

// sharedStub is a module whose records a partnership shares: each reader
// loses "<partnership>:<exPartner>" at its end, and at its start gains
// the partner's event "<partnership>:<partner>" and loses their solo
// message "solo:<reader>".
type sharedStub struct{}

func (sharedStub) LostWith(_ context.Context, partnershipID, reader, exPartner string) ([]core.Change, error) {
	return []core.Change{core.Delete(reader, core.ChangeMessage, partnershipID+":"+exPartner)}, nil
}

func (sharedStub) GainedWith(_ context.Context, partnershipID, reader, partner string) ([]core.Change, error) {
	return []core.Change{core.Delete(reader, core.ChangeMessage, "solo:"+reader),
		core.Put(reader, core.ChangeEvent, partnershipID+":"+partner, "read")}, nil
}

// lostOnlyStub shares records that a partnership's start changes for
// nobody (core.SharedData without GainedWith).
type lostOnlyStub struct{}

func (lostOnlyStub) LostWith(_ context.Context, partnershipID, reader, _ string) ([]core.Change, error) {
	return []core.Change{core.Delete(reader, core.ChangeRelationship, reader)}, nil
}

// TestPairingChangesReachTheFeed: a code's owner gets their status; a
// submit that only waits records both statuses (the request, sent and
// waiting), nothing of what the shared-data owners gave for a connect; a connect puts both statuses and the partnership for
// both, with the changes each owner gives at a start; an unpair puts both
// statuses, deletes the partnership and gives each the changes of the
// shared records at an end.
func TestPairingChangesReachTheFeed(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.svc.AddShared(sharedStub{}, lostOnlyStub{})
	since := func() func() []string {
		n := len(f.bus.Changes())
		return func() []string { got := f.bus.Changes()[n:]; slices.Sort(got); return got }
	}
	got := since()
	ca := f.code(t, "a")
	if want := []string{"a pairing a put"}; !slices.Equal(got(), want) {
		t.Fatalf("generate: %q, want %q", got(), want)
	}
	got = since()
	f.submit("b", ca)
	if want := []string{"a pairing a put", "b pairing b put"}; !slices.Equal(got(), want) {
		t.Fatalf("a submit that waits: %q, want both statuses alone", got())
	}
	cb := f.code(t, "b")
	got = since()
	f.submit("a", cb)
	p, _, _, err := f.svc.PartnershipOf(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a event " + p + ":b put", "a message solo:a delete", "a pairing a put", "a partnership " + p + " put",
		"b event " + p + ":a put", "b message solo:b delete", "b pairing b put", "b partnership " + p + " put"}
	if g := got(); !slices.Equal(g, want) {
		t.Fatalf("connect: %q, want %q", g, want)
	}
	got = since()
	if err := f.svc.Unpair(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	want = []string{"a message " + p + ":b delete", "a pairing a put", "a partnership " + p + " delete", "a relationship a delete",
		"b message " + p + ":a delete", "b pairing b put", "b partnership " + p + " delete", "b relationship b delete"}
	if g := got(); !slices.Equal(g, want) {
		t.Fatalf("unpair: %q, want %q", g, want)
	}
}

// growingStub is a module whose reader gains a record while the end runs:
// its second enumeration, after the end committed, finds one more.
type growingStub struct{ calls *int }

func (g growingStub) LostWith(_ context.Context, partnershipID, reader, _ string) ([]core.Change, error) {
	*g.calls++
	out := []core.Change{core.Delete(reader, core.ChangeMessage, "m1")}
	if *g.calls > 2 { // both readers' first enumeration done: "m2" was written meanwhile
		out = append(out, core.Delete(reader, core.ChangeMessage, "m2"))
	}
	return out, nil
}

// TestAnEndRecordsWhatItsFirstEnumerationMissed: a record written between
// the end's enumeration and its commit gets its delete after the commit,
// once; what the first enumeration had is not recorded twice.
func TestAnEndRecordsWhatItsFirstEnumerationMissed(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	calls := 0
	f.svc.AddShared(growingStub{&calls})
	f.pairByCodes(t, "a", "b")
	n := len(f.bus.Changes())
	if err := f.svc.Unpair(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	got := f.bus.Changes()[n:]
	want := []string{"a pairing a put", "a partnership ", "a message m1 delete", "b pairing b put", "b partnership ",
		"b message m1 delete", "a message m2 delete", "b message m2 delete"}
	if len(got) != len(want) {
		t.Fatalf("unpair: %q, want %q", got, want)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Fatalf("unpair: %q, want %q", got, want)
		}
	}
}

// growingGain is a module whose partner writes a record while the connect
// runs: its enumerations after both members' first find one more.
type growingGain struct{ calls *int }

func (growingGain) LostWith(context.Context, string, string, string) ([]core.Change, error) {
	return nil, nil
}

func (g growingGain) GainedWith(_ context.Context, _, reader, partner string) ([]core.Change, error) {
	*g.calls++
	out := []core.Change{core.Put(reader, core.ChangeEvent, partner+"-e1", "read")}
	if *g.calls > 2 {
		out = append(out, core.Put(reader, core.ChangeEvent, partner+"-e2", "read"))
	}
	return out, nil
}

// TestAStartRecordsWhatItsFirstEnumerationMissed: a record the new partner
// may read, written between the connect's enumeration and its commit, gets
// its put after the commit, once.
func TestAStartRecordsWhatItsFirstEnumerationMissed(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	calls := 0
	f.svc.AddShared(growingGain{&calls})
	ca := f.code(t, "a")
	f.submit("b", ca)
	calls = 0 // the waiting submit enumerated too
	cb := f.code(t, "b")
	n := len(f.bus.Changes())
	f.submit("a", cb)
	var events []string
	for _, c := range f.bus.Changes()[n:] {
		if strings.Contains(c, " event ") {
			events = append(events, c)
		}
	}
	want := []string{"b event a-e1 put", "a event b-e1 put", "b event a-e2 put", "a event b-e2 put"} // the code's owner first
	if !slices.Equal(events, want) {
		t.Fatalf("connect: %q, want %q", events, want)
	}
}
