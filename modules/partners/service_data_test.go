// This file holds the tests of what a user's pairing data becomes: its
// export, its purge, and what a proof of the mailbox clears.

package partners_test

import (
	"testing"

	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/partners"
)

func TestUserData(t *testing.T) {
	t.Parallel()
	var _ core.UserData = (*partners.Service)(nil)

	t.Run("export: connection code, pairing code, partner", func(t *testing.T) {
		f := newFixture(t)
		if f.svc.Section() != "partners" {
			t.Fatal(f.svc.Section())
		}
		v, err := f.svc.ExportUser(ctx, "a")
		if err != nil || v != (partners.Export{}) {
			t.Fatalf("%+v %v", v, err)
		}
		ca := f.code(t, "a")
		f.create("a", "zq7w-conn-code-a")
		v, _ = f.svc.ExportUser(ctx, "a")
		e := v.(partners.Export)
		if *e.ConnectionCode != "zq7w-conn-code-a" || *e.PairingCode != ca || e.PartnerID != nil {
			t.Fatalf("%+v", e)
		}
		f.linkWith("b", "zq7w-conn-code-a")
		v, _ = f.svc.ExportUser(ctx, "b")
		e = v.(partners.Export)
		if e.ConnectionCode != nil || e.PairingCode != nil || *e.PartnerID != "a" {
			t.Fatalf("%+v", e)
		}
	})
	t.Run("purge ends the partnership for both, frees the codes, is idempotent", func(t *testing.T) {
		f := newFixture(t)
		f.link(t, "a", "b")
		id, _, _, _ := f.svc.PartnershipOf(ctx, "a")
		if err := f.svc.PurgeUser(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		if f.partner(t, "b") != "" {
			t.Fatal("b is still paired")
		}
		wantEvents(t, f.bus, core.PartnershipStarted{PartnershipID: id, UserIDs: [2]string{"a", "b"}},
			core.PartnershipEnded{PartnershipID: id, UserIDs: [2]string{"a", "b"}})
		if _, err := f.create("c", "zq7w-conn-code-a"); err != nil {
			t.Fatalf("the connection code stays taken: %v", err)
		}
		if err := f.svc.PurgeUser(ctx, "a"); err != nil || len(facts(f.bus)) != 2 {
			t.Fatalf("second purge: %v %+v", err, facts(f.bus))
		}
	})
	t.Run("purge of an unpaired user deletes their code and requests both ways", func(t *testing.T) {
		f := newFixture(t)
		ca, cb := f.code(t, "a"), f.code(t, "b")
		f.submit("a", cb)
		f.submit("c", ca)
		if err := f.svc.PurgeUser(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		for _, u := range []string{"b", "c"} {
			if s := f.status(t, u); s.State != partners.StateUnpaired {
				t.Fatalf("%s: %+v", u, s)
			}
		}
		_, err := f.submit("c", ca)
		coretest.WantErr(t, err, core.KindInvalid, "invalid_pairing_code")
		if len(facts(f.bus)) != 0 {
			t.Fatal("nothing ended")
		}
	})
}

// A proof of a mailbox ends what pairing made before it: the codes and the
// pending request always; the partnership only when the account had no
// proven owner before (Unproven), with PartnershipEnded as for an unpair.
func TestWaysInEndedClearsPairingMadeBefore(t *testing.T) {
	handle := func(f *fixture, e core.WaysInEnded) {
		if err := f.svc.Listener().Handle(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("a pending request and its codes go", func(t *testing.T) {
		f := newFixture(t)
		cb := f.code(t, "b")
		ca := f.code(t, "a")
		if _, err := f.submit("a", cb); err != nil {
			t.Fatal(err)
		}
		if s := f.status(t, "b"); s.State != partners.StatePending {
			t.Fatalf("b: %+v", s)
		}
		handle(f, core.WaysInEnded{UserID: "a", At: f.clock.Now()})
		for _, u := range []string{"a", "b"} {
			if s := f.status(t, u); s.State == partners.StatePending || s.State == partners.StateConnected {
				t.Fatalf("%s after the proof: %+v", u, s)
			}
		}
		if out, err := f.submit("b", ca); err == nil || out.Connected { // a's old code pairs nobody
			t.Fatalf("a's code made before the proof still pairs: %+v %v", out, err)
		}
	})
	t.Run("a proven account keeps its partnership", func(t *testing.T) {
		f := newFixture(t)
		f.pairByCodes(t, "a", "b")
		handle(f, core.WaysInEnded{UserID: "a", At: f.clock.Now()})
		if s := f.status(t, "a"); s.State != partners.StateConnected {
			t.Fatalf("a: %+v", s)
		}
	})
	t.Run("an unproven account's partnership ends", func(t *testing.T) {
		f := newFixture(t)
		f.pairByCodes(t, "a", "b")
		id, _, _, _ := f.svc.PartnershipOf(ctx, "a")
		handle(f, core.WaysInEnded{UserID: "a", At: f.clock.Now(), Unproven: true})
		for _, u := range []string{"a", "b"} {
			if s := f.status(t, u); s.State != partners.StateUnpaired {
				t.Fatalf("%s: %+v", u, s)
			}
		}
		if ev := facts(f.bus); len(ev) != 2 || ev[1] != (core.PartnershipEnded{PartnershipID: id, UserIDs: [2]string{"a", "b"}}) {
			t.Fatalf("events %v", ev)
		}
	})
}
