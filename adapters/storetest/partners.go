package storetest

import (
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/partners"
)

// PartnerRepository checks a partners.Repository implementation, the
// one-partnership-per-user invariant and its behaviour under concurrency.
func PartnerRepository(t *testing.T, newRepo func(t *testing.T) partners.Repository) {
	ps := partnerSuite{newRepo: newRepo}
	t.Run("connections: put, replace, codes unique and found ignoring case", ps.connections)
	t.Run("purge of expired connections: unpaired owners only, from the expiry on", ps.purgeExpiredConnections)
	t.Run("pairing codes: put, replace, unique and exact codes", ps.pairingCodes)
	t.Run("snapshot of a stranger is empty", ps.strangerSnapshot)
	t.Run("pair loads both users' data; a refusing decision writes nothing", ps.pairLoads)
	t.Run("pair refuses a partnership or request for a paired user whatever the decision", ps.pairRefusesPaired)
	t.Run("link creates the partnership and clears both users' pairing data", ps.linkClears)
	t.Run("one partnership per user, whichever flow", ps.onePerUser)
	t.Run("submit: pending, one outgoing request, newest incoming first, mutual connects", ps.submitFlow)
	t.Run("end removes the partnership and both members; then either may pair again", ps.end)
	t.Run("purge ends the partnership and deletes the user's codes and requests, idempotently", ps.purge)
	t.Run("clear pairing deletes codes and requests, keeps a partnership and its code", ps.clearPairing)

	// under concurrency: partners_concurrency.go
	t.Run("concurrent mutual submits pair exactly once", ps.concurrentMutualSubmits)
	t.Run("concurrent links to one code: one wins, the other is already_paired", ps.concurrentLinks)
	t.Run("both partners ending at once: one ends it, the other finds nothing", ps.concurrentEnds)
}

// partnerSuite holds PartnerRepository's helpers and subtests.
type partnerSuite struct {
	newRepo func(t *testing.T) partners.Repository
}

func (partnerSuite) conn(user, code string) partners.Connection {
	return partners.Connection{ID: "c-" + user + "-" + code, UserID: user, Code: code, CreatedAt: now,
		ExpiresAt: now.Add(partners.DefaultConnectionCodeTTL)}
}

func (partnerSuite) pcode(user, code string) partners.PairingCode {
	return partners.PairingCode{UserID: user, Code: code, ExpiresAt: now.Add(partners.PairingCodeTTL), CreatedAt: now}
}

func (partnerSuite) ship(id, a, b string) partners.Partnership {
	return partners.Partnership{ID: id, UserA: a, UserB: b, CreatedAt: now}
}

func (partnerSuite) req(from, to string, at time.Time) partners.Request {
	return partners.Request{From: from, To: to, CreatedAt: at}
}

// codes gives each user ("u1", "u2"...) the pairing code CODE1X, CODE2X...
func (ps partnerSuite) codes(t *testing.T, r partners.Repository, users ...string) {
	t.Helper()
	for _, u := range users {
		must(t, r.PutPairingCode(ctx, ps.pcode(u, "CODE"+u[1:]+"X")))
	}
}

// linked pairs p's members: p.UserA puts the connection code, p.UserB links
// with it.
func (ps partnerSuite) linked(t *testing.T, r partners.Repository, p partners.Partnership, code string) {
	t.Helper()
	must(t, r.PutConnection(ctx, ps.conn(p.UserA, code)))
	must(t, link(r, p, code))
}

// link runs the module's connection-code rule through Pair, as the service
// does: p.UserB links with code, p.UserA's connection code.
func link(r partners.Repository, p partners.Partnership, code string) error {
	return r.Pair(ctx, p.Users(), func(st partners.Pairing) (partners.PairingChange, error) {
		return partners.DecideLink(st, code, p, p.CreatedAt)
	})
}

// submit runs the module's mutual-pairing rule through Pair, as the
// service does, with q.To's current pairing code.
func (partnerSuite) submit(r partners.Repository, q partners.Request, p partners.Partnership) (partners.SubmitOutcome, error) {
	var code string
	if s, err := r.Snapshot(ctx, q.To); err == nil && s.PairingCode != nil {
		code = s.PairingCode.Code
	}
	var out partners.SubmitOutcome
	err := r.Pair(ctx, p.Users(), func(st partners.Pairing) (partners.PairingChange, error) {
		change, outcome, err := partners.DecideSubmit(st, q, code, p, q.CreatedAt)
		out = outcome
		return change, err
	})
	return out, err
}

func (ps partnerSuite) mustSubmit(t *testing.T, r partners.Repository, q partners.Request, p partners.Partnership, connected bool) {
	t.Helper()
	out, err := ps.submit(r, q, p)
	must(t, err)
	if out.Connected != connected {
		t.Fatalf("submit %+v: %+v", q, out)
	}
}

// wantUnpaired checks that no user has a partnership.
func (partnerSuite) wantUnpaired(t *testing.T, r partners.Repository, users ...string) {
	t.Helper()
	for _, u := range users {
		_, err := r.PartnershipOf(ctx, u)
		wantKind(t, err, core.KindNotFound)
	}
}

func (ps partnerSuite) connections(t *testing.T) {
	r := ps.newRepo(t)
	must(t, r.PutConnection(ctx, ps.conn("u1", "alpha")))
	got, err := r.ConnectionOf(ctx, "u1")
	must(t, err)
	if got != ps.conn("u1", "alpha") {
		t.Fatalf("got %+v", got)
	}
	byCode, err := r.ConnectionByCode(ctx, "alpha")
	must(t, err)
	if byCode != got {
		t.Fatalf("by code %+v", byCode)
	}
	wantKind(t, r.PutConnection(ctx, ps.conn("u2", "alpha")), core.KindConflict)
	must(t, r.PutConnection(ctx, ps.conn("u1", "beta"))) // replaces u1's code
	must(t, r.PutConnection(ctx, ps.conn("u1", "beta"))) // the same code again is fine
	_, err = r.ConnectionByCode(ctx, "alpha")
	wantKind(t, err, core.KindNotFound)
	got, _ = r.ConnectionOf(ctx, "u1")
	if got != ps.conn("u1", "beta") {
		t.Fatalf("replaced %+v", got)
	}
	must(t, r.PutConnection(ctx, ps.conn("u2", "alpha")))                       // free again
	wantKind(t, r.PutConnection(ctx, ps.conn("u3", "BETA")), core.KindConflict) // u1 holds beta
	must(t, r.PutConnection(ctx, ps.conn("u1", "Beta")))                        // the owner may respell it
	for _, typed := range []string{"beta", "BETA", "Beta"} {
		got, err := r.ConnectionByCode(ctx, typed)
		must(t, err)
		if got != ps.conn("u1", "Beta") {
			t.Fatalf("by %q: %+v", typed, got)
		}
	}
	must(t, r.PutConnection(ctx, ps.conn("u1", "gamma"))) // the old key is free again
	must(t, r.PutConnection(ctx, ps.conn("u3", "BETA")))
	_, err = r.ConnectionOf(ctx, "nobody")
	wantKind(t, err, core.KindNotFound)
	_, err = r.ConnectionByCode(ctx, "delta")
	wantKind(t, err, core.KindNotFound)
}

func (ps partnerSuite) purgeExpiredConnections(t *testing.T) {
	r := ps.newRepo(t)
	expiring := func(user, code string, at time.Time) partners.Connection {
		c := ps.conn(user, code)
		c.ExpiresAt = at
		return c
	}
	at := now.Add(time.Hour)
	must(t, r.PutConnection(ctx, expiring("u1", "Expired-One", at.Add(-time.Millisecond))))
	must(t, r.PutConnection(ctx, expiring("u2", "expired-two", at))) // expires at the very instant: gone
	must(t, r.PutConnection(ctx, expiring("u3", "still-good", at.Add(time.Millisecond))))
	linkedAt := now.Add(time.Millisecond) // linkable when linked, expired at the purge
	must(t, r.PutConnection(ctx, expiring("u4", "linked-code", linkedAt)))
	must(t, link(r, ps.ship("p1", "u4", "u5"), "linked-code"))
	must(t, r.PutConnection(ctx, expiring("u6", "paired-owner", now)))
	must(t, r.PutPairingCode(ctx, ps.pcode("u6", "GGGGGG")))
	must(t, r.PutPairingCode(ctx, ps.pcode("u7", "HHHHHH")))
	ps.mustSubmit(t, r, ps.req("u6", "u7", now), ps.ship("x", "u7", "u6"), false)
	ps.mustSubmit(t, r, ps.req("u7", "u6", now), ps.ship("p2", "u6", "u7"), true)

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
	must(t, r.PutConnection(ctx, ps.conn("u8", "EXPIRED-ONE"))) // the key is free again
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
}

func (ps partnerSuite) pairingCodes(t *testing.T) {
	r := ps.newRepo(t)
	must(t, r.PutPairingCode(ctx, ps.pcode("u1", "AAAAAA")))
	got, err := r.PairingCodeByCode(ctx, "AAAAAA")
	must(t, err)
	if got != ps.pcode("u1", "AAAAAA") {
		t.Fatalf("got %+v", got)
	}
	wantKind(t, r.PutPairingCode(ctx, ps.pcode("u2", "AAAAAA")), core.KindConflict)
	must(t, r.PutPairingCode(ctx, ps.pcode("u1", "BBBBBB")))
	_, err = r.PairingCodeByCode(ctx, "AAAAAA")
	wantKind(t, err, core.KindNotFound)
	_, err = r.PairingCodeByCode(ctx, "bbbbbb")
	wantKind(t, err, core.KindNotFound)
	s, err := r.Snapshot(ctx, "u1")
	must(t, err)
	if s.PairingCode == nil || *s.PairingCode != ps.pcode("u1", "BBBBBB") {
		t.Fatalf("snapshot %+v", s)
	}
}

func (ps partnerSuite) strangerSnapshot(t *testing.T) {
	r := ps.newRepo(t)
	s, err := r.Snapshot(ctx, "nobody")
	must(t, err)
	if s.Partnership != nil || s.Connection != nil || s.PairingCode != nil || s.Outgoing != nil || len(s.Incoming) != 0 {
		t.Fatalf("snapshot %+v", s)
	}
	ps.wantUnpaired(t, r, "nobody")
}

func (ps partnerSuite) pairLoads(t *testing.T) {
	r := ps.newRepo(t)
	must(t, r.PutConnection(ctx, ps.conn("u1", "code1")))
	ps.codes(t, r, "u1", "u2", "u3")
	ps.mustSubmit(t, r, ps.req("u1", "u3", now), ps.ship("x", "u3", "u1"), false)
	ps.mustSubmit(t, r, ps.req("u2", "u3", now), ps.ship("y", "u3", "u2"), false)
	must(t, link(r, ps.ship("p9", "u1", "u4"), "code1")) // u4 paired: only u4 of the two below
	var got partners.Pairing
	refused := core.Invalid("no", "storetest.no", "no")
	err := r.Pair(ctx, [2]string{"u4", "u2"}, func(st partners.Pairing) (partners.PairingChange, error) {
		got = st
		q := ps.req("u2", "u4", now)
		return partners.PairingChange{Request: &q}, refused
	})
	if err != refused {
		t.Fatalf("decide's error is returned as it is: %v", err)
	}
	if len(got.Paired) != 1 || got.Paired[0] != "u4" || len(got.Codes) != 1 || got.Codes[0] != ps.pcode("u2", "CODE2X") ||
		len(got.Connections) != 0 || len(got.Requests) != 1 || got.Requests[0] != ps.req("u2", "u3", now) {
		t.Fatalf("loaded %+v", got)
	}
	s, _ := r.Snapshot(ctx, "u2")
	if s.Outgoing == nil || *s.Outgoing != ps.req("u2", "u3", now) {
		t.Fatalf("a refused decision wrote: %+v", s)
	}
	err = r.Pair(ctx, [2]string{"u1", "u3"}, func(st partners.Pairing) (partners.PairingChange, error) {
		got = st
		return partners.PairingChange{}, nil
	})
	must(t, err)
	if len(got.Connections) != 1 || got.Connections[0] != ps.conn("u1", "code1") || len(got.Paired) != 1 {
		t.Fatalf("loaded %+v", got)
	}
}

func (ps partnerSuite) pairRefusesPaired(t *testing.T) {
	r := ps.newRepo(t)
	ps.linked(t, r, ps.ship("p1", "u1", "u2"), "code1")
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
}

func (ps partnerSuite) linkClears(t *testing.T) {
	r := ps.newRepo(t)
	must(t, r.PutConnection(ctx, ps.conn("u1", "code1")))
	ps.codes(t, r, "u1", "u2", "u3")
	ps.mustSubmit(t, r, ps.req("u2", "u3", now), ps.ship("x", "u3", "u2"), false)
	ps.mustSubmit(t, r, ps.req("u3", "u1", now), ps.ship("y", "u1", "u3"), false)
	wantKind(t, link(r, ps.ship("p0", "u3", "u2"), "code1"), core.KindNotFound) // not u3's code
	must(t, link(r, ps.ship("p1", "u1", "u2"), "code1"))
	for _, u := range []string{"u1", "u2"} {
		p, err := r.PartnershipOf(ctx, u)
		must(t, err)
		if p != ps.ship("p1", "u1", "u2") {
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
}

func (ps partnerSuite) onePerUser(t *testing.T) {
	r := ps.newRepo(t)
	must(t, r.PutConnection(ctx, ps.conn("u1", "code1")))
	must(t, r.PutConnection(ctx, ps.conn("u3", "code3")))
	must(t, r.PutPairingCode(ctx, ps.pcode("u4", "DDDDDD")))
	must(t, link(r, ps.ship("p1", "u1", "u2"), "code1"))

	wantCode(t, link(r, ps.ship("p2", "u3", "u1"), "code3"), core.KindConflict, "already_paired")
	wantCode(t, link(r, ps.ship("p3", "u3", "u2"), "code3"), core.KindConflict, "already_paired")
	_, err := ps.submit(r, ps.req("u2", "u4", now), ps.ship("p4", "u4", "u2"))
	wantCode(t, err, core.KindConflict, "already_paired")
	_, err = ps.submit(r, ps.req("u4", "u1", now), ps.ship("p5", "u1", "u4"))
	wantCode(t, err, core.KindConflict, "already_paired")
	wantCode(t, r.PutPairingCode(ctx, ps.pcode("u1", "EEEEEE")), core.KindConflict, "already_paired")

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
}

func (ps partnerSuite) submitFlow(t *testing.T) {
	r := ps.newRepo(t)
	ps.codes(t, r, "u1", "u2", "u3")
	ps.mustSubmit(t, r, ps.req("u1", "u2", now), ps.ship("x1", "u2", "u1"), false)
	s, _ := r.Snapshot(ctx, "u2")
	if len(s.Incoming) != 1 || s.Incoming[0] != ps.req("u1", "u2", now) || s.Outgoing != nil {
		t.Fatalf("u2 %+v", s)
	}
	later := now.Add(time.Minute)
	ps.mustSubmit(t, r, ps.req("u1", "u3", later), ps.ship("x2", "u3", "u1"), false) // replaces u1's request
	s, _ = r.Snapshot(ctx, "u1")
	if s.Outgoing == nil || *s.Outgoing != ps.req("u1", "u3", later) {
		t.Fatalf("u1 %+v", s)
	}
	s, _ = r.Snapshot(ctx, "u2")
	if len(s.Incoming) != 0 {
		t.Fatalf("u2 still has %+v", s.Incoming)
	}
	ps.mustSubmit(t, r, ps.req("u2", "u3", now), ps.ship("x3", "u3", "u2"), false)
	s, _ = r.Snapshot(ctx, "u3")
	if len(s.Incoming) != 2 || s.Incoming[0].From != "u1" || s.Incoming[1].From != "u2" {
		t.Fatalf("u3 incoming, newest first: %+v", s.Incoming)
	}

	// u3 submits u1's code: u1 had asked u3, so both are connected at once
	out, err := ps.submit(r, ps.req("u3", "u1", later), ps.ship("p1", "u1", "u3"))
	must(t, err)
	if !out.Connected || out.MyCode != "CODE3X" {
		t.Fatalf("outcome %+v", out)
	}
	for _, u := range []string{"u1", "u3"} {
		s, _ := r.Snapshot(ctx, u)
		if s.Partnership == nil || *s.Partnership != ps.ship("p1", "u1", "u3") || s.PairingCode != nil || s.Outgoing != nil || len(s.Incoming) != 0 {
			t.Fatalf("%s snapshot %+v", u, s)
		}
	}
	s, _ = r.Snapshot(ctx, "u2") // u2's request to u3 is cleared, u2's own code stays
	if s.Outgoing != nil || s.PairingCode == nil || s.Partnership != nil {
		t.Fatalf("u2 snapshot %+v", s)
	}
}

func (ps partnerSuite) end(t *testing.T) {
	r := ps.newRepo(t)
	ps.linked(t, r, ps.ship("p1", "u1", "u2"), "code1")
	p, err := r.End(ctx, "u2")
	must(t, err)
	if p != ps.ship("p1", "u1", "u2") {
		t.Fatalf("ended %+v", p)
	}
	ps.wantUnpaired(t, r, "u1", "u2")
	_, err = r.End(ctx, "u1")
	wantKind(t, err, core.KindNotFound)
	must(t, r.PutPairingCode(ctx, ps.pcode("u2", "FFFFFF")))
	must(t, link(r, ps.ship("p2", "u1", "u3"), "code1"))
	s, _ := r.Snapshot(ctx, "u3")
	if s.Partnership == nil || s.Partnership.ID != "p2" {
		t.Fatalf("u3 %+v", s)
	}
}

func (ps partnerSuite) purge(t *testing.T) {
	r := ps.newRepo(t)
	ps.linked(t, r, ps.ship("p1", "u1", "u2"), "code1")
	p, ended, err := r.Purge(ctx, "u1")
	must(t, err)
	if !ended || p != ps.ship("p1", "u1", "u2") {
		t.Fatalf("purge: %v %+v", ended, p)
	}
	ps.wantUnpaired(t, r, "u2")
	_, err = r.ConnectionOf(ctx, "u1")
	wantKind(t, err, core.KindNotFound)
	must(t, r.PutConnection(ctx, ps.conn("u9", "code1"))) // the code is free again

	ps.codes(t, r, "u3", "u4", "u5")
	ps.mustSubmit(t, r, ps.req("u3", "u4", now), ps.ship("x", "u4", "u3"), false)
	ps.mustSubmit(t, r, ps.req("u5", "u3", now), ps.ship("y", "u3", "u5"), false)
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
}

func (ps partnerSuite) clearPairing(t *testing.T) {
	r := ps.newRepo(t)
	ps.linked(t, r, ps.ship("p1", "u1", "u2"), "code1")
	must(t, r.ClearPairing(ctx, "u1"))
	if p, err := r.PartnershipOf(ctx, "u1"); err != nil || p != ps.ship("p1", "u1", "u2") {
		t.Fatalf("the partnership: %+v %v", p, err)
	}
	if _, err := r.ConnectionOf(ctx, "u1"); err != nil {
		t.Fatalf("a paired owner's code, which both see, went: %v", err)
	}
	ps.codes(t, r, "u3", "u4")
	must(t, r.PutConnection(ctx, ps.conn("u3", "code3")))
	ps.mustSubmit(t, r, ps.req("u3", "u4", now), ps.ship("x", "u4", "u3"), false)
	must(t, r.ClearPairing(ctx, "u3"))
	s, _ := r.Snapshot(ctx, "u3")
	if s.PairingCode != nil || s.Outgoing != nil || len(s.Incoming) != 0 {
		t.Fatalf("u3 %+v", s)
	}
	if s, _ := r.Snapshot(ctx, "u4"); len(s.Incoming) != 0 || s.PairingCode == nil {
		t.Fatalf("u4 %+v", s)
	}
	_, err := r.ConnectionOf(ctx, "u3")
	wantKind(t, err, core.KindNotFound)
	must(t, r.ClearPairing(ctx, "u3")) // idempotent
}
