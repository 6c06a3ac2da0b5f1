// This file holds the pairing-code tests of Service: the spec's pairing
// table, the order of submit's errors, pending requests, and the one
// partnership both flows share.

package partners_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"tandem/adapters/memory"
	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/partners"
)

// TestPairingTable walks every row of the spec's pairing state table.
func TestPairingTable(t *testing.T) {
	t.Parallel()

	t.Run("unpaired, generate-code: a code of 6 that expires in 24 h; again replaces it", func(t *testing.T) {
		f := newFixture(t)
		c, err := f.svc.GenerateCode(ctx, "a")
		if err != nil {
			t.Fatal(err)
		}
		if n, ok := partners.NormalizePairingCode(c.Code); !ok || n != c.Code || !c.ExpiresAt.Equal(f.clock.Now().Add(24*time.Hour)) {
			t.Fatalf("code %+v", c)
		}
		s := f.status(t, "a")
		if s.State != partners.StateUnpaired || s.MyCode == nil || *s.MyCode != c || s.ActionRequired {
			t.Fatalf("status %+v", s)
		}
		again := f.code(t, "a")
		for again == c.Code { // 1 in 10^9: draw until it differs
			again = f.code(t, "a")
		}
		_, err = f.submit("b", c.Code)
		coretest.WantErr(t, err, core.KindInvalid, "invalid_pairing_code")
		if s := f.status(t, "a"); s.MyCode.Code != again {
			t.Fatalf("status %+v", s)
		}
	})

	t.Run("unpaired, submit-code, partner has not confirmed: pending, actionRequired false", func(t *testing.T) {
		f := newFixture(t)
		cb := f.code(t, "b")
		out, err := f.submit("a", cb)
		if err != nil || out != (partners.SubmitOutcome{PartnerID: "b"}) {
			t.Fatalf("%+v %v", out, err)
		}
		if s := f.status(t, "a"); s != (partners.Status{State: partners.StatePending, OutgoingTo: "b"}) {
			t.Fatalf("a: %+v", s)
		}
		s := f.status(t, "b")
		if s.State != partners.StatePending || s.IncomingFrom != "a" || !s.ActionRequired || s.MyCode == nil {
			t.Fatalf("b: %+v", s)
		}
		if f.partner(t, "a") != "" || len(facts(f.bus)) != 0 {
			t.Fatal("pending must not pair")
		}
	})

	t.Run("pending, submit-code from the other partner, mutual: connected with partnerId and myCode", func(t *testing.T) {
		f := newFixture(t)
		ca, cb := f.code(t, "a"), f.code(t, "b")
		if _, err := f.submit("a", cb); err != nil {
			t.Fatal(err)
		}
		out, err := f.submit("b", strings.ToLower(ca)) // typed in lower case
		if err != nil || out != (partners.SubmitOutcome{Connected: true, PartnerID: "a", MyCode: cb}) {
			t.Fatalf("%+v %v", out, err)
		}
		for user, partner := range map[string]string{"a": "b", "b": "a"} {
			if s := f.status(t, user); s != (partners.Status{State: partners.StateConnected, PartnerID: partner}) {
				t.Fatalf("%s: %+v", user, s)
			}
			if f.partner(t, user) != partner {
				t.Fatalf("%s partner", user)
			}
		}
		id, partner, ok, err := f.svc.PartnershipOf(ctx, "b")
		if err != nil || !ok || partner != "a" || id == "" {
			t.Fatalf("PartnershipOf: %q %q %v %v", id, partner, ok, err)
		}
		wantEvents(t, f.bus, core.PartnershipStarted{PartnershipID: id, UserIDs: [2]string{"a", "b"}})
		for _, c := range []string{ca, cb} { // every code is cleared
			_, err := f.submit("c", c)
			coretest.WantErr(t, err, core.KindInvalid, "invalid_pairing_code")
		}
	})

	t.Run("any, submit-code with an invalid or expired code: invalid_pairing_code, unchanged", func(t *testing.T) {
		cases := []struct {
			name string
			code func(t *testing.T, f *fixture) string
		}{
			{"unknown code", func(*testing.T, *fixture) string { return "ZZZZZZ" }},
			{"malformed code", func(*testing.T, *fixture) string { return "nope!" }},
			{"empty code", func(*testing.T, *fixture) string { return "" }},
			{"own code", func(t *testing.T, f *fixture) string { return f.code(t, "a") }},
			{"expired after exactly 24 h", func(t *testing.T, f *fixture) string {
				c := f.code(t, "b")
				f.clock.Advance(24 * time.Hour)
				return c
			}},
			{"replaced by a newer code", func(t *testing.T, f *fixture) string {
				c := f.code(t, "b")
				for f.code(t, "b") == c {
				}
				return c
			}},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				f := newFixture(t)
				_, err := f.submit("a", tc.code(t, f))
				coretest.WantErr(t, err, core.KindInvalid, "invalid_pairing_code")
				if s := f.status(t, "a"); s.State != partners.StateUnpaired || s.OutgoingTo != "" {
					t.Fatalf("stored something: %+v", s)
				}
				if s := f.status(t, "b"); s.IncomingFrom != "" {
					t.Fatalf("b: %+v", s)
				}
			})
		}
	})

	t.Run("a code is still good 1 ms before 24 h", func(t *testing.T) {
		f := newFixture(t)
		cb := f.code(t, "b")
		f.clock.Advance(24*time.Hour - time.Millisecond)
		if _, err := f.submit("a", cb); err != nil {
			t.Fatal(err)
		}
		if s := f.status(t, "b"); s.MyCode == nil {
			t.Fatal("status hides a live code")
		}
		f.clock.Advance(time.Millisecond)
		if s := f.status(t, "b"); s.MyCode != nil || !s.ActionRequired {
			t.Fatalf("status shows an expired code: %+v", s)
		}
	})

	t.Run("connected, unpair: both unpaired, all pairing data cleared, PartnershipEnded", func(t *testing.T) {
		f := newFixture(t)
		f.code(t, "c")
		f.pairByCodes(t, "a", "b")
		id, _, _, _ := f.svc.PartnershipOf(ctx, "a")
		if err := f.svc.Unpair(ctx, "b"); err != nil {
			t.Fatal(err)
		}
		for _, u := range []string{"a", "b"} {
			if s := f.status(t, u); s != (partners.Status{State: partners.StateUnpaired}) {
				t.Fatalf("%s: %+v", u, s)
			}
		}
		wantEvents(t, f.bus, core.PartnershipStarted{PartnershipID: id, UserIDs: [2]string{"a", "b"}},
			core.PartnershipEnded{PartnershipID: id, UserIDs: [2]string{"a", "b"}})
		coretest.WantErr(t, f.svc.Unpair(ctx, "a"), core.KindConflict, "not_paired")
		if len(facts(f.bus)) != 2 {
			t.Fatal("a refused unpair published")
		}
		f.pairByCodes(t, "a", "c") // free to pair again
	})
}

// TestSubmitErrorOrder: caller paired, then the code, then the owner.
func TestSubmitErrorOrder(t *testing.T) {
	t.Parallel()

	t.Run("caller paired beats an invalid code", func(t *testing.T) {
		f := newFixture(t)
		f.link(t, "a", "b")
		for _, code := range []string{"ZZZZZZ", "", "bad"} {
			_, err := f.submit("a", code)
			coretest.WantErr(t, err, core.KindConflict, "already_paired")
		}
	})
	t.Run("caller paired beats a valid code", func(t *testing.T) {
		f := newFixture(t)
		cc := f.code(t, "c")
		f.link(t, "a", "b")
		_, err := f.submit("b", cc)
		coretest.WantErr(t, err, core.KindConflict, "already_paired")
		if s := f.status(t, "c"); s.IncomingFrom != "" {
			t.Fatalf("c: %+v", s)
		}
	})
	t.Run("the code is checked before its owner: expired code of a paired owner is invalid", func(t *testing.T) {
		repo := memory.NewPartnerRepo()
		stale := &staleCodes{PartnerRepo: repo}
		f := newFixtureOn(repo, stale)
		stale.code = partners.PairingCode{UserID: "b", Code: "BBBBBB", ExpiresAt: f.clock.Now()}
		f.link(t, "b", "c")
		_, err := f.submit("a", "BBBBBB")
		coretest.WantErr(t, err, core.KindInvalid, "invalid_pairing_code")
	})
	t.Run("owner paired since the code was read: already_paired", func(t *testing.T) {
		repo := memory.NewPartnerRepo()
		stale := &staleCodes{PartnerRepo: repo}
		f := newFixtureOn(repo, stale)
		stale.code = partners.PairingCode{UserID: "b", Code: "BBBBBB", ExpiresAt: f.clock.Now().Add(time.Hour)}
		f.link(t, "b", "c")
		_, err := f.submit("a", "BBBBBB")
		coretest.WantErr(t, err, core.KindConflict, "already_paired")
		if s := f.status(t, "a"); s.State != partners.StateUnpaired {
			t.Fatalf("a: %+v", s)
		}
	})
	t.Run("owner paired between the checks and the write: already_paired", func(t *testing.T) {
		repo := memory.NewPartnerRepo()
		racy := &pairsFirst{PartnerRepo: repo}
		f := newFixtureOn(repo, racy)
		cb := f.code(t, "b")
		racy.before = func() { f.link(t, "b", "c") }
		_, err := f.submit("a", cb)
		coretest.WantErr(t, err, core.KindConflict, "already_paired")
		if s := f.status(t, "a"); s.State != partners.StateUnpaired {
			t.Fatalf("a: %+v", s)
		}
	})
	t.Run("generate-code while paired", func(t *testing.T) {
		f := newFixture(t)
		f.pairByCodes(t, "a", "b")
		_, err := f.svc.GenerateCode(ctx, "a")
		coretest.WantErr(t, err, core.KindConflict, "already_paired")
	})
	t.Run("missing user", func(t *testing.T) {
		f := newFixture(t)
		_, err := f.submit(" ", "ABCDEF")
		coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
		_, err = f.svc.GenerateCode(ctx, "")
		coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
	})
}

// staleCodes answers PairingCodeByCode with a fixed code, as a read taken
// just before the owner paired would.
type staleCodes struct {
	*memory.PartnerRepo
	code partners.PairingCode
}

func (s *staleCodes) PairingCodeByCode(context.Context, string) (partners.PairingCode, error) {
	return s.code, nil
}

// pairsFirst runs before() once, just ahead of the next Pair:
// another request pairing one of the users between the service's checks and
// the write.
type pairsFirst struct {
	*memory.PartnerRepo
	before func()
}

func (p *pairsFirst) fire() {
	if f := p.before; f != nil {
		p.before = nil
		f()
	}
}

func (p *pairsFirst) Pair(ctx context.Context, users [2]string, decide func(partners.Pairing) (partners.PairingChange, error)) error {
	p.fire()
	return p.PartnerRepo.Pair(ctx, users, decide)
}

func TestPendingRequests(t *testing.T) {
	t.Parallel()

	t.Run("a second submit replaces the caller's outgoing request", func(t *testing.T) {
		f := newFixture(t)
		cb, cc := f.code(t, "b"), f.code(t, "c")
		if _, err := f.submit("a", cb); err != nil {
			t.Fatal(err)
		}
		if _, err := f.submit("a", cc); err != nil {
			t.Fatal(err)
		}
		if s := f.status(t, "a"); s.OutgoingTo != "c" {
			t.Fatalf("a: %+v", s)
		}
		if s := f.status(t, "b"); s.State != partners.StateUnpaired || s.ActionRequired {
			t.Fatalf("b: %+v", s)
		}
	})
	t.Run("incomingFrom is the newest request; pairing clears the others' requests to both", func(t *testing.T) {
		f := newFixture(t)
		ca := f.code(t, "a")
		if _, err := f.submit("b", ca); err != nil {
			t.Fatal(err)
		}
		f.clock.Advance(time.Minute)
		if _, err := f.submit("c", ca); err != nil {
			t.Fatal(err)
		}
		if s := f.status(t, "a"); s.IncomingFrom != "c" || !s.ActionRequired || s.State != partners.StatePending {
			t.Fatalf("a: %+v", s)
		}
		out, err := f.submit("a", f.code(t, "b")) // b had asked a: connected
		if err != nil || !out.Connected || out.MyCode != ca || out.PartnerID != "b" {
			t.Fatalf("%+v %v", out, err)
		}
		if s := f.status(t, "c"); s != (partners.Status{State: partners.StateUnpaired}) {
			t.Fatalf("c keeps a dead request: %+v", s)
		}
	})
	t.Run("a mutual request needs the other's own submit; submitting twice stays pending", func(t *testing.T) {
		f := newFixture(t)
		cb := f.code(t, "b")
		for range 2 {
			out, err := f.submit("a", cb)
			if err != nil || out.Connected {
				t.Fatalf("%+v %v", out, err)
			}
		}
	})
}

// TestOnePartnershipWhicheverFlow: the two flows share one partnership.
func TestOnePartnershipWhicheverFlow(t *testing.T) {
	t.Parallel()

	t.Run("paired by link: no pairing code, no submit, no second link", func(t *testing.T) {
		f := newFixture(t)
		cc := f.code(t, "c")
		f.code(t, "a")
		f.link(t, "a", "b")
		if s := f.status(t, "a"); s.MyCode != nil {
			t.Fatal("linking keeps a pairing code")
		}
		_, err := f.svc.GenerateCode(ctx, "b")
		coretest.WantErr(t, err, core.KindConflict, "already_paired")
		_, err = f.submit("a", cc)
		coretest.WantErr(t, err, core.KindConflict, "already_paired")
	})
	t.Run("paired by codes, ended by unlink", func(t *testing.T) {
		f := newFixture(t)
		f.pairByCodes(t, "a", "b")
		if err := f.svc.Unlink(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		if f.partner(t, "b") != "" {
			t.Fatal("still paired")
		}
	})
	t.Run("paired by link, ended by unpair", func(t *testing.T) {
		f := newFixture(t)
		f.link(t, "a", "b")
		if err := f.svc.Unpair(ctx, "b"); err != nil {
			t.Fatal(err)
		}
		if s := f.status(t, "a"); s.State != partners.StateUnpaired {
			t.Fatalf("%+v", s)
		}
	})
}
