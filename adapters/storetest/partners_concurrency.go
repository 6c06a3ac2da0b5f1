package storetest

import (
	"fmt"
	"testing"

	"tandem/core"
	"tandem/modules/partners"
)

func (ps partnerSuite) concurrentMutualSubmits(t *testing.T) {
	r := ps.newRepo(t)
	for round := range 30 {
		a, b := fmt.Sprintf("a%02d", round), fmt.Sprintf("b%02d", round)
		must(t, r.PutPairingCode(ctx, ps.pcode(a, fmt.Sprintf("A%05d", round))))
		must(t, r.PutPairingCode(ctx, ps.pcode(b, fmt.Sprintf("B%05d", round))))
		outs := make([]partners.SubmitOutcome, 2)
		errs := race(
			func() (err error) { outs[0], err = ps.submit(r, ps.req(a, b, now), ps.ship("pa"+a, b, a)); return },
			func() (err error) { outs[1], err = ps.submit(r, ps.req(b, a, now), ps.ship("pb"+b, a, b)); return },
		)
		must(t, errs[0])
		must(t, errs[1])
		if outs[0].Connected == outs[1].Connected {
			t.Fatalf("round %d: exactly one submit must connect: %+v", round, outs)
		}
		want := "pb" + b
		if outs[0].Connected {
			want = "pa" + a
		}
		for _, u := range []string{a, b} {
			s, err := r.Snapshot(ctx, u)
			must(t, err)
			if s.Partnership == nil || s.Partnership.ID != want || s.PairingCode != nil || s.Outgoing != nil || len(s.Incoming) != 0 {
				t.Fatalf("round %d: %s left %+v", round, u, s)
			}
		}
	}
}

func (ps partnerSuite) concurrentLinks(t *testing.T) {
	r := ps.newRepo(t)
	for round := range 30 {
		owner, x, y := fmt.Sprintf("o%02d", round), fmt.Sprintf("x%02d", round), fmt.Sprintf("y%02d", round)
		must(t, r.PutConnection(ctx, ps.conn(owner, "code-"+owner)))
		errs := race(
			func() error { return link(r, ps.ship("px"+x, owner, x), "code-"+owner) },
			func() error { return link(r, ps.ship("py"+y, owner, y), "code-"+owner) },
		)
		winner, loser := x, y
		if errs[0] != nil {
			winner, loser = y, x
			errs[0], errs[1] = errs[1], errs[0]
		}
		must(t, errs[0])
		wantCode(t, errs[1], core.KindConflict, "already_paired")
		p, err := r.PartnershipOf(ctx, owner)
		must(t, err)
		if p.PartnerOf(owner) != winner {
			t.Fatalf("round %d: %+v", round, p)
		}
		ps.wantUnpaired(t, r, loser)
	}
}

func (ps partnerSuite) concurrentEnds(t *testing.T) {
	r := ps.newRepo(t)
	for round := range 10 {
		a, b := fmt.Sprintf("a%02d", round), fmt.Sprintf("b%02d", round)
		ps.linked(t, r, ps.ship("p"+a, a, b), "code-"+a)
		errs := race(
			func() error { _, err := r.End(ctx, a); return err },
			func() error { _, err := r.End(ctx, b); return err },
		)
		if (errs[0] == nil) == (errs[1] == nil) {
			t.Fatalf("round %d: %v", round, errs)
		}
		for _, err := range errs {
			if err != nil {
				wantKind(t, err, core.KindNotFound)
			}
		}
	}
}
