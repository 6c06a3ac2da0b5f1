package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/partners"
)

// PartnerRepository checks a partners.Repository implementation, the
// one-partnership-per-user invariant and its behaviour under concurrency.
func PartnerRepository(t *testing.T, newRepo func(t *testing.T) partners.Repository) {
	ctx := context.Background()
	now := time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)
	conn := func(user, code string) partners.Connection {
		return partners.Connection{ID: "c-" + user + "-" + code, UserID: user, Code: code, CreatedAt: now,
			ExpiresAt: now.Add(partners.DefaultConnectionCodeTTL)}
	}
	pcode := func(user, code string) partners.PairingCode {
		return partners.PairingCode{UserID: user, Code: code, ExpiresAt: now.Add(partners.PairingCodeTTL), CreatedAt: now}
	}
	ship := func(id, a, b string) partners.Partnership {
		return partners.Partnership{ID: id, UserA: a, UserB: b, CreatedAt: now}
	}
	req := func(from, to string, at time.Time) partners.Request {
		return partners.Request{From: from, To: to, CreatedAt: at}
	}

	t.Run("connections: put, replace, codes unique and found ignoring case", func(t *testing.T) {
		r := newRepo(t)
		must(t, r.PutConnection(ctx, conn("u1", "alpha")))
		got, err := r.ConnectionOf(ctx, "u1")
		must(t, err)
		if got != conn("u1", "alpha") {
			t.Fatalf("got %+v", got)
		}
		byCode, err := r.ConnectionByCode(ctx, "alpha")
		must(t, err)
		if byCode != got {
			t.Fatalf("by code %+v", byCode)
		}
		wantKind(t, r.PutConnection(ctx, conn("u2", "alpha")), core.KindConflict)
		must(t, r.PutConnection(ctx, conn("u1", "beta"))) // replaces u1's code
		must(t, r.PutConnection(ctx, conn("u1", "beta"))) // the same code again is fine
		_, err = r.ConnectionByCode(ctx, "alpha")
		wantKind(t, err, core.KindNotFound)
		got, _ = r.ConnectionOf(ctx, "u1")
		if got != conn("u1", "beta") {
			t.Fatalf("replaced %+v", got)
		}
		must(t, r.PutConnection(ctx, conn("u2", "alpha")))                       // free again
		wantKind(t, r.PutConnection(ctx, conn("u3", "BETA")), core.KindConflict) // u1 holds beta
		must(t, r.PutConnection(ctx, conn("u1", "Beta")))                        // the owner may respell it
		for _, typed := range []string{"beta", "BETA", "Beta"} {
			got, err := r.ConnectionByCode(ctx, typed)
			must(t, err)
			if got != conn("u1", "Beta") {
				t.Fatalf("by %q: %+v", typed, got)
			}
		}
		must(t, r.PutConnection(ctx, conn("u1", "gamma"))) // the old key is free again
		must(t, r.PutConnection(ctx, conn("u3", "BETA")))
		_, err = r.ConnectionOf(ctx, "nobody")
		wantKind(t, err, core.KindNotFound)
		_, err = r.ConnectionByCode(ctx, "delta")
		wantKind(t, err, core.KindNotFound)
	})

	t.Run("purge of expired connections: unpaired owners only, from the expiry on", func(t *testing.T) {
		r := newRepo(t)
		expiring := func(user, code string, at time.Time) partners.Connection {
			c := conn(user, code)
			c.ExpiresAt = at
			return c
		}
		at := now.Add(time.Hour)
		must(t, r.PutConnection(ctx, expiring("u1", "Expired-One", at.Add(-time.Millisecond))))
		must(t, r.PutConnection(ctx, expiring("u2", "expired-two", at))) // expires at the very instant: gone
		must(t, r.PutConnection(ctx, expiring("u3", "still-good", at.Add(time.Millisecond))))
		linkedAt := now.Add(time.Millisecond) // linkable when linked, expired at the purge
		must(t, r.PutConnection(ctx, expiring("u4", "linked-code", linkedAt)))
		must(t, link(r, ship("p1", "u4", "u5"), "linked-code"))
		must(t, r.PutConnection(ctx, expiring("u6", "paired-owner", now)))
		must(t, r.PutPairingCode(ctx, pcode("u6", "GGGGGG")))
		must(t, r.PutPairingCode(ctx, pcode("u7", "HHHHHH")))
		mustSubmit(t, r, req("u6", "u7", now), ship("x", "u7", "u6"), false)
		mustSubmit(t, r, req("u7", "u6", now), ship("p2", "u6", "u7"), true)

		n, err := r.PurgeExpiredConnections(ctx, at)
		must(t, err)
		if n != 2 {
			t.Fatalf("purged %d, want 2", n)
		}
		for _, u := range []string{"u1", "u2"} {
			_, err := r.ConnectionOf(ctx, u)
			wantKind(t, err, core.KindNotFound)
		}
		_, err = r.ConnectionByCode(ctx, "expired-one")
		wantKind(t, err, core.KindNotFound)
		for _, c := range []partners.Connection{expiring("u3", "still-good", at.Add(time.Millisecond)),
			expiring("u4", "linked-code", linkedAt), expiring("u6", "paired-owner", now)} {
			got, err := r.ConnectionOf(ctx, c.UserID)
			must(t, err)
			if got != c {
				t.Fatalf("kept %+v, want %+v", got, c)
			}
		}
		must(t, r.PutConnection(ctx, conn("u8", "EXPIRED-ONE"))) // the key is free again
		if n, err := r.PurgeExpiredConnections(ctx, at); err != nil || n != 0 {
			t.Fatalf("second purge: %d %v", n, err)
		}
		_, err = r.End(ctx, "u4")
		must(t, err)
		if n, err := r.PurgeExpiredConnections(ctx, at); err != nil || n != 1 { // unpaired now: its code goes
			t.Fatalf("purge after unlink: %d %v", n, err)
		}
		_, err = r.ConnectionOf(ctx, "u4")
		wantKind(t, err, core.KindNotFound)
	})

	t.Run("pairing codes: put, replace, unique and exact codes", func(t *testing.T) {
		r := newRepo(t)
		must(t, r.PutPairingCode(ctx, pcode("u1", "AAAAAA")))
		got, err := r.PairingCodeByCode(ctx, "AAAAAA")
		must(t, err)
		if got != pcode("u1", "AAAAAA") {
			t.Fatalf("got %+v", got)
		}
		wantKind(t, r.PutPairingCode(ctx, pcode("u2", "AAAAAA")), core.KindConflict)
		must(t, r.PutPairingCode(ctx, pcode("u1", "BBBBBB")))
		_, err = r.PairingCodeByCode(ctx, "AAAAAA")
		wantKind(t, err, core.KindNotFound)
		_, err = r.PairingCodeByCode(ctx, "bbbbbb")
		wantKind(t, err, core.KindNotFound)
		s, err := r.Snapshot(ctx, "u1")
		must(t, err)
		if s.PairingCode == nil || *s.PairingCode != pcode("u1", "BBBBBB") {
			t.Fatalf("snapshot %+v", s)
		}
	})

	t.Run("snapshot of a stranger is empty", func(t *testing.T) {
		r := newRepo(t)
		s, err := r.Snapshot(ctx, "nobody")
		must(t, err)
		if s.Partnership != nil || s.Connection != nil || s.PairingCode != nil || s.Outgoing != nil || len(s.Incoming) != 0 {
			t.Fatalf("snapshot %+v", s)
		}
		_, err = r.PartnershipOf(ctx, "nobody")
		wantKind(t, err, core.KindNotFound)
	})

	t.Run("pair loads both users' data; a refusing decision writes nothing", func(t *testing.T) {
		r := newRepo(t)
		must(t, r.PutConnection(ctx, conn("u1", "code1")))
		for _, u := range []string{"u1", "u2", "u3"} {
			must(t, r.PutPairingCode(ctx, pcode(u, "CODE"+u[1:]+"X")))
		}
		mustSubmit(t, r, req("u1", "u3", now), ship("x", "u3", "u1"), false)
		mustSubmit(t, r, req("u2", "u3", now), ship("y", "u3", "u2"), false)
		must(t, link(r, ship("p9", "u1", "u4"), "code1")) // u4 paired: only u4 of the two below
		var got partners.Pairing
		refused := core.Invalid("no", "no")
		err := r.Pair(ctx, [2]string{"u4", "u2"}, func(st partners.Pairing) (partners.PairingChange, error) {
			got = st
			q := req("u2", "u4", now)
			return partners.PairingChange{Request: &q}, refused
		})
		if err != refused {
			t.Fatalf("decide's error is returned as it is: %v", err)
		}
		if len(got.Paired) != 1 || got.Paired[0] != "u4" || len(got.Codes) != 1 || got.Codes[0] != pcode("u2", "CODE2X") ||
			len(got.Connections) != 0 || len(got.Requests) != 1 || got.Requests[0] != req("u2", "u3", now) {
			t.Fatalf("loaded %+v", got)
		}
		s, _ := r.Snapshot(ctx, "u2")
		if s.Outgoing == nil || *s.Outgoing != req("u2", "u3", now) {
			t.Fatalf("a refused decision wrote: %+v", s)
		}
		err = r.Pair(ctx, [2]string{"u1", "u3"}, func(st partners.Pairing) (partners.PairingChange, error) {
			got = st
			return partners.PairingChange{}, nil
		})
		must(t, err)
		if len(got.Connections) != 1 || got.Connections[0] != conn("u1", "code1") || len(got.Paired) != 1 {
			t.Fatalf("loaded %+v", got)
		}
	})

	t.Run("pair refuses a partnership or request for a paired user whatever the decision", func(t *testing.T) {
		r := newRepo(t)
		must(t, r.PutConnection(ctx, conn("u1", "code1")))
		must(t, link(r, ship("p1", "u1", "u2"), "code1"))
		for _, change := range []partners.PairingChange{
			{Partnership: &partners.Partnership{ID: "p2", UserA: "u3", UserB: "u2", CreatedAt: now}},
			{Request: &partners.Request{From: "u2", To: "u3", CreatedAt: now}},
		} {
			err := r.Pair(ctx, [2]string{"u2", "u3"}, func(partners.Pairing) (partners.PairingChange, error) { return change, nil })
			wantCode(t, err, core.KindConflict, "already_paired")
		}
		s, _ := r.Snapshot(ctx, "u3")
		if s.Partnership != nil || len(s.Incoming) != 0 {
			t.Fatalf("u3 %+v", s)
		}
	})

	t.Run("link creates the partnership and clears both users' pairing data", func(t *testing.T) {
		r := newRepo(t)
		must(t, r.PutConnection(ctx, conn("u1", "code1")))
		for _, u := range []string{"u1", "u2", "u3"} {
			must(t, r.PutPairingCode(ctx, pcode(u, "CODE"+u[1:]+"X")))
		}
		mustSubmit(t, r, req("u2", "u3", now), ship("x", "u3", "u2"), false)
		mustSubmit(t, r, req("u3", "u1", now), ship("y", "u1", "u3"), false)
		wantKind(t, link(r, ship("p0", "u3", "u2"), "code1"), core.KindNotFound) // not u3's code
		must(t, link(r, ship("p1", "u1", "u2"), "code1"))
		for _, u := range []string{"u1", "u2"} {
			p, err := r.PartnershipOf(ctx, u)
			must(t, err)
			if p != ship("p1", "u1", "u2") {
				t.Fatalf("%s: %+v", u, p)
			}
			s, _ := r.Snapshot(ctx, u)
			if s.Partnership == nil || *s.Partnership != p || s.PairingCode != nil || s.Outgoing != nil || len(s.Incoming) != 0 {
				t.Fatalf("%s snapshot %+v", u, s)
			}
		}
		s, _ := r.Snapshot(ctx, "u1")
		if s.Connection == nil || s.Connection.Code != "code1" {
			t.Fatal("the connection code stays with its owner")
		}
		s, _ = r.Snapshot(ctx, "u3") // u3's request to u1 and u2's to u3 are gone; u3's code stays
		if s.Partnership != nil || s.Outgoing != nil || len(s.Incoming) != 0 || s.PairingCode == nil {
			t.Fatalf("u3 snapshot %+v", s)
		}
	})

	t.Run("one partnership per user, whichever flow", func(t *testing.T) {
		r := newRepo(t)
		must(t, r.PutConnection(ctx, conn("u1", "code1")))
		must(t, r.PutConnection(ctx, conn("u3", "code3")))
		must(t, r.PutPairingCode(ctx, pcode("u4", "DDDDDD")))
		must(t, link(r, ship("p1", "u1", "u2"), "code1"))

		wantCode(t, link(r, ship("p2", "u3", "u1"), "code3"), core.KindConflict, "already_paired")
		wantCode(t, link(r, ship("p3", "u3", "u2"), "code3"), core.KindConflict, "already_paired")
		_, err := submit(r, req("u2", "u4", now), ship("p4", "u4", "u2"))
		wantCode(t, err, core.KindConflict, "already_paired")
		_, err = submit(r, req("u4", "u1", now), ship("p5", "u1", "u4"))
		wantCode(t, err, core.KindConflict, "already_paired")
		wantCode(t, r.PutPairingCode(ctx, pcode("u1", "EEEEEE")), core.KindConflict, "already_paired")

		for _, u := range []string{"u3", "u4"} {
			s, _ := r.Snapshot(ctx, u)
			if s.Partnership != nil || s.Outgoing != nil || len(s.Incoming) != 0 {
				t.Fatalf("%s touched by a refused pairing: %+v", u, s)
			}
		}
		p, _ := r.PartnershipOf(ctx, "u1")
		if p.ID != "p1" {
			t.Fatalf("partnership %+v", p)
		}
		_, err = r.PairingCodeByCode(ctx, "EEEEEE")
		wantKind(t, err, core.KindNotFound)
	})

	t.Run("submit: pending, one outgoing request, newest incoming first, mutual connects", func(t *testing.T) {
		r := newRepo(t)
		for _, u := range []string{"u1", "u2", "u3"} {
			must(t, r.PutPairingCode(ctx, pcode(u, "CODE"+u[1:]+"X")))
		}
		mustSubmit(t, r, req("u1", "u2", now), ship("x1", "u2", "u1"), false)
		s, _ := r.Snapshot(ctx, "u2")
		if len(s.Incoming) != 1 || s.Incoming[0] != req("u1", "u2", now) || s.Outgoing != nil {
			t.Fatalf("u2 %+v", s)
		}
		later := now.Add(time.Minute)
		mustSubmit(t, r, req("u1", "u3", later), ship("x2", "u3", "u1"), false) // replaces u1's request
		s, _ = r.Snapshot(ctx, "u1")
		if s.Outgoing == nil || *s.Outgoing != req("u1", "u3", later) {
			t.Fatalf("u1 %+v", s)
		}
		s, _ = r.Snapshot(ctx, "u2")
		if len(s.Incoming) != 0 {
			t.Fatalf("u2 still has %+v", s.Incoming)
		}
		mustSubmit(t, r, req("u2", "u3", now), ship("x3", "u3", "u2"), false)
		s, _ = r.Snapshot(ctx, "u3")
		if len(s.Incoming) != 2 || s.Incoming[0].From != "u1" || s.Incoming[1].From != "u2" {
			t.Fatalf("u3 incoming, newest first: %+v", s.Incoming)
		}

		// u3 submits u1's code: u1 had asked u3, so both are connected at once
		out, err := submit(r, req("u3", "u1", later), ship("p1", "u1", "u3"))
		must(t, err)
		if !out.Connected || out.MyCode != "CODE3X" {
			t.Fatalf("outcome %+v", out)
		}
		for _, u := range []string{"u1", "u3"} {
			s, _ := r.Snapshot(ctx, u)
			if s.Partnership == nil || *s.Partnership != ship("p1", "u1", "u3") || s.PairingCode != nil || s.Outgoing != nil || len(s.Incoming) != 0 {
				t.Fatalf("%s snapshot %+v", u, s)
			}
		}
		s, _ = r.Snapshot(ctx, "u2") // u2's request to u3 is cleared, u2's own code stays
		if s.Outgoing != nil || s.PairingCode == nil || s.Partnership != nil {
			t.Fatalf("u2 snapshot %+v", s)
		}
	})

	t.Run("end removes the partnership and both members; then either may pair again", func(t *testing.T) {
		r := newRepo(t)
		must(t, r.PutConnection(ctx, conn("u1", "code1")))
		must(t, link(r, ship("p1", "u1", "u2"), "code1"))
		p, err := r.End(ctx, "u2")
		must(t, err)
		if p != ship("p1", "u1", "u2") {
			t.Fatalf("ended %+v", p)
		}
		for _, u := range []string{"u1", "u2"} {
			_, err := r.PartnershipOf(ctx, u)
			wantKind(t, err, core.KindNotFound)
		}
		_, err = r.End(ctx, "u1")
		wantKind(t, err, core.KindNotFound)
		must(t, r.PutPairingCode(ctx, pcode("u2", "FFFFFF")))
		must(t, link(r, ship("p2", "u1", "u3"), "code1"))
		s, _ := r.Snapshot(ctx, "u3")
		if s.Partnership == nil || s.Partnership.ID != "p2" {
			t.Fatalf("u3 %+v", s)
		}
	})

	t.Run("purge ends the partnership and deletes the user's codes and requests, idempotently", func(t *testing.T) {
		r := newRepo(t)
		must(t, r.PutConnection(ctx, conn("u1", "code1")))
		must(t, link(r, ship("p1", "u1", "u2"), "code1"))
		p, ended, err := r.Purge(ctx, "u1")
		must(t, err)
		if !ended || p != ship("p1", "u1", "u2") {
			t.Fatalf("purge: %v %+v", ended, p)
		}
		_, err = r.PartnershipOf(ctx, "u2")
		wantKind(t, err, core.KindNotFound)
		_, err = r.ConnectionOf(ctx, "u1")
		wantKind(t, err, core.KindNotFound)
		must(t, r.PutConnection(ctx, conn("u9", "code1"))) // the code is free again

		for _, u := range []string{"u3", "u4", "u5"} {
			must(t, r.PutPairingCode(ctx, pcode(u, "CODE"+u[1:]+"X")))
		}
		mustSubmit(t, r, req("u3", "u4", now), ship("x", "u4", "u3"), false)
		mustSubmit(t, r, req("u5", "u3", now), ship("y", "u3", "u5"), false)
		_, ended, err = r.Purge(ctx, "u3")
		must(t, err)
		if ended {
			t.Fatal("u3 was not paired")
		}
		s, _ := r.Snapshot(ctx, "u3")
		if s.PairingCode != nil || s.Outgoing != nil || len(s.Incoming) != 0 {
			t.Fatalf("u3 %+v", s)
		}
		for _, u := range []string{"u4", "u5"} {
			s, _ := r.Snapshot(ctx, u)
			if s.Outgoing != nil || len(s.Incoming) != 0 || s.PairingCode == nil {
				t.Fatalf("%s %+v", u, s)
			}
		}
		_, ended, err = r.Purge(ctx, "u3")
		must(t, err)
		if ended {
			t.Fatal("second purge ended something")
		}
	})

	t.Run("concurrent mutual submits pair exactly once", func(t *testing.T) {
		r := newRepo(t)
		for round := range 30 {
			a, b := fmt.Sprintf("a%02d", round), fmt.Sprintf("b%02d", round)
			must(t, r.PutPairingCode(ctx, pcode(a, fmt.Sprintf("A%05d", round))))
			must(t, r.PutPairingCode(ctx, pcode(b, fmt.Sprintf("B%05d", round))))
			outs := make([]partners.SubmitOutcome, 2)
			errs := race(
				func() (err error) { outs[0], err = submit(r, req(a, b, now), ship("pa"+a, b, a)); return },
				func() (err error) { outs[1], err = submit(r, req(b, a, now), ship("pb"+b, a, b)); return },
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
	})

	t.Run("concurrent links to one code: one wins, the other is already_paired", func(t *testing.T) {
		r := newRepo(t)
		for round := range 30 {
			owner, x, y := fmt.Sprintf("o%02d", round), fmt.Sprintf("x%02d", round), fmt.Sprintf("y%02d", round)
			must(t, r.PutConnection(ctx, conn(owner, "code-"+owner)))
			errs := race(
				func() error { return link(r, ship("px"+x, owner, x), "code-"+owner) },
				func() error { return link(r, ship("py"+y, owner, y), "code-"+owner) },
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
			_, err = r.PartnershipOf(ctx, loser)
			wantKind(t, err, core.KindNotFound)
		}
	})

	t.Run("both partners ending at once: one ends it, the other finds nothing", func(t *testing.T) {
		r := newRepo(t)
		for round := range 10 {
			a, b := fmt.Sprintf("a%02d", round), fmt.Sprintf("b%02d", round)
			must(t, r.PutConnection(ctx, conn(a, "code-"+a)))
			must(t, link(r, ship("p"+a, a, b), "code-"+a))
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
	})
}

// race runs fns at the same instant (released together by a closed channel)
// and returns their errors in order.
func race(fns ...func() error) []error {
	errs := make([]error, len(fns))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, fn := range fns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = fn()
		}()
	}
	close(start)
	wg.Wait()
	return errs
}

// submit runs the module's mutual-pairing rule through Pair, as the
// service does, with q.To's current pairing code.
func submit(r partners.Repository, q partners.Request, p partners.Partnership) (partners.SubmitOutcome, error) {
	var code string
	if s, err := r.Snapshot(context.Background(), q.To); err == nil && s.PairingCode != nil {
		code = s.PairingCode.Code
	}
	var out partners.SubmitOutcome
	err := r.Pair(context.Background(), p.Users(), func(st partners.Pairing) (partners.PairingChange, error) {
		change, outcome, err := partners.DecideSubmit(st, q, code, p, q.CreatedAt)
		out = outcome
		return change, err
	})
	return out, err
}

// link runs the module's connection-code rule through Pair, as the service
// does: p.UserB links with code, p.UserA's connection code.
func link(r partners.Repository, p partners.Partnership, code string) error {
	return r.Pair(context.Background(), p.Users(), func(st partners.Pairing) (partners.PairingChange, error) {
		return partners.DecideLink(st, code, p, p.CreatedAt)
	})
}

func mustSubmit(t *testing.T, r partners.Repository, q partners.Request, p partners.Partnership, connected bool) {
	t.Helper()
	out, err := submit(r, q, p)
	must(t, err)
	if out.Connected != connected {
		t.Fatalf("submit %+v: %+v", q, out)
	}
}

func wantCode(t *testing.T, err error, k core.Kind, code string) {
	t.Helper()
	if !core.IsKind(err, k) || core.As(err).Code != code {
		t.Fatalf("want %v/%s, got %v", k, code, err)
	}
}
