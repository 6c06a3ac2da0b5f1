// This file holds the connection-code tests of Service: the spec's
// connection table, drawn and chosen codes, case, strength, expiry, and the
// owner told of a link.

package partners_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"tandem/adapters/memory"
	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/partners"
)

// TestConnectionTable walks every row of the spec's connection-code table and its errors.
func TestConnectionTable(t *testing.T) {
	t.Parallel()

	t.Run("none, create: connection exists, id returned", func(t *testing.T) {
		f := newFixture(t)
		c, err := f.create("a", "zq7w-our-code_1")
		week := f.clock.Now().Add(partners.DefaultConnectionCodeTTL)
		if err != nil || c.ID == "" || c.UserID != "a" || c.Code != "zq7w-our-code_1" || !c.ExpiresAt.Equal(week) {
			t.Fatalf("%+v %v", c, err)
		}
		v, err := f.svc.Connection(ctx, "a")
		if err != nil || v != (partners.ConnectionView{UserID: "a", Code: "zq7w-our-code_1", ExpiresAt: week}) {
			t.Fatalf("%+v %v", v, err)
		}
	})
	t.Run("connection exists, link: linked, partnerId of the first user", func(t *testing.T) {
		f := newFixture(t)
		if _, err := f.create("a", "zq7w-our-code"); err != nil {
			t.Fatal(err)
		}
		partner, err := f.linkWith("b", "zq7w-our-code")
		if err != nil || partner != "a" {
			t.Fatalf("%q %v", partner, err)
		}
		week := f.clock.Now().Add(partners.DefaultConnectionCodeTTL)
		for user, want := range map[string]partners.ConnectionView{
			"a": {UserID: "a", PartnerID: "b", Code: "zq7w-our-code", ExpiresAt: week},
			"b": {UserID: "b", PartnerID: "a", Code: "zq7w-our-code", ExpiresAt: week}, // the linker sees the code they used
		} {
			v, err := f.svc.Connection(ctx, user)
			if err != nil || v != want {
				t.Fatalf("%s: %+v %v", user, v, err)
			}
		}
		id, _, _, _ := f.svc.PartnershipOf(ctx, "a")
		wantEvents(t, f.bus, core.PartnershipStarted{PartnershipID: id, UserIDs: [2]string{"a", "b"}})
		if s := f.status(t, "b"); s.State != partners.StateConnected || s.PartnerID != "a" {
			t.Fatalf("pairing status: %+v", s)
		}
	})
	t.Run("linked, unlink: unlinked, PartnershipEnded", func(t *testing.T) {
		f := newFixture(t)
		f.link(t, "a", "b")
		if err := f.svc.Unlink(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		v, err := f.svc.Connection(ctx, "a")
		if err != nil || v != (partners.ConnectionView{UserID: "a", Code: "zq7w-conn-code-a",
			ExpiresAt: f.clock.Now().Add(partners.DefaultConnectionCodeTTL)}) {
			t.Fatalf("%+v %v", v, err)
		}
		_, err = f.svc.Connection(ctx, "b")
		coretest.WantErr(t, err, core.KindNotFound, "not_found")
		if f.partner(t, "a") != "" || f.partner(t, "b") != "" {
			t.Fatal("still partners")
		}
		events := facts(f.bus)
		if len(events) != 2 || events[1] != (core.PartnershipEnded{PartnershipID: events[0].(core.PartnershipStarted).PartnershipID, UserIDs: [2]string{"a", "b"}}) {
			t.Fatalf("events %+v", events)
		}
		coretest.WantErr(t, f.svc.Unlink(ctx, "a"), core.KindConflict, "not_paired")
		if _, err := f.linkWith("c", "zq7w-conn-code-a"); err != nil { // the code works again
			t.Fatal(err)
		}
	})
	t.Run("create again replaces the caller's code", func(t *testing.T) {
		f := newFixture(t)
		first, _ := f.create("a", "zq7w-first-code")
		second, err := f.create("a", "zq7w-second-code")
		if err != nil || second.ID == first.ID {
			t.Fatalf("%+v %v", second, err)
		}
		_, err = f.linkWith("b", "zq7w-first-code")
		coretest.WantErr(t, err, core.KindNotFound, "not_found")
		if _, err := f.create("c", "zq7w-first-code"); err != nil {
			t.Fatal(err)
		}
	})

	errCases := []struct {
		name    string
		arrange func(t *testing.T, f *fixture)
		act     func(f *fixture) error
		kind    core.Kind
		code    string
	}{
		{"create: code of 7", nil, func(f *fixture) error { _, err := f.create("a", "abcdefg"); return err },
			core.KindInvalid, "invalid_request"},
		{"create: code of 4, which the earlier rule allowed", nil, func(f *fixture) error { _, err := f.create("a", "abcd"); return err },
			core.KindInvalid, "invalid_request"},
		{"create: taken by another user in another case", func(t *testing.T, f *fixture) { f.create("b", "Zq7w-Taken-Code") },
			func(f *fixture) error { _, err := f.create("a", "zQ7W-tAKEN-cODE"); return err },
			core.KindConflict, "conflict"},
		{"create: code of 65", nil, func(f *fixture) error {
			_, err := f.create("a", strings.Repeat("a", 65))
			return err
		}, core.KindInvalid, "invalid_request"},
		{"create: bad characters", nil, func(f *fixture) error { _, err := f.create("a", "our code"); return err },
			core.KindInvalid, "invalid_request"},
		{"create: taken by another user", func(t *testing.T, f *fixture) { f.create("b", "zq7w-taken-code") },
			func(f *fixture) error { _, err := f.create("a", "zq7w-taken-code"); return err },
			core.KindConflict, "conflict"},
		{"get: no connection", nil, func(f *fixture) error { _, err := f.svc.Connection(ctx, "a"); return err },
			core.KindNotFound, "not_found"},
		{"link: unknown code", nil, func(f *fixture) error { _, err := f.linkWith("a", "nobody-has-it"); return err },
			core.KindNotFound, "not_found"},
		{"link: malformed code", nil, func(f *fixture) error { _, err := f.linkWith("a", "x"); return err },
			core.KindInvalid, "invalid_request"},
		{"link: own code", func(t *testing.T, f *fixture) { f.create("a", "zq7w-mine-code") },
			func(f *fixture) error { _, err := f.linkWith("a", "zq7w-mine-code"); return err }, core.KindInvalid, "invalid_request"},
		{"link: caller already paired", func(t *testing.T, f *fixture) {
			f.link(t, "a", "b")
			f.create("c", "zq7w-conn-code-c")
		}, func(f *fixture) error { _, err := f.linkWith("b", "zq7w-conn-code-c"); return err }, core.KindConflict, "already_paired"},
		{"link: caller paired beats an unknown code", func(t *testing.T, f *fixture) { f.pairByCodes(t, "a", "b") },
			func(f *fixture) error { _, err := f.linkWith("a", "nobody-has-it"); return err }, core.KindConflict, "already_paired"},
		{"link: owner already paired", func(t *testing.T, f *fixture) { f.link(t, "a", "b") },
			func(f *fixture) error { _, err := f.linkWith("c", "zq7w-conn-code-a"); return err }, core.KindConflict, "already_paired"},
		{"link: owner paired by codes", func(t *testing.T, f *fixture) {
			f.create("a", "zq7w-conn-code-a")
			f.pairByCodes(t, "a", "b")
		}, func(f *fixture) error { _, err := f.linkWith("c", "zq7w-conn-code-a"); return err }, core.KindConflict, "already_paired"},
		{"unlink: not paired", nil, func(f *fixture) error { return f.svc.Unlink(ctx, "a") }, core.KindConflict, "not_paired"},
		{"unpair: not paired", nil, func(f *fixture) error { return f.svc.Unpair(ctx, "a") }, core.KindConflict, "not_paired"},
	}
	for _, tc := range errCases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			if tc.arrange != nil {
				tc.arrange(t, f)
			}
			before := len(facts(f.bus))
			coretest.WantErr(t, tc.act(f), tc.kind, tc.code)
			if len(facts(f.bus)) != before {
				t.Fatal("a refused operation published an event")
			}
		})
	}

	t.Run("link: owner paired between the checks and the write", func(t *testing.T) {
		repo := memory.NewPartnerRepo()
		racy := &pairsFirst{PartnerRepo: repo}
		f := newFixtureOn(repo, racy)
		f.create("a", "zq7w-conn-code-a")
		racy.before = func() { f.link(t, "c", "a") }
		_, err := f.linkWith("b", "zq7w-conn-code-a")
		coretest.WantErr(t, err, core.KindConflict, "already_paired")
		if f.partner(t, "b") != "" || f.partner(t, "a") != "c" {
			t.Fatal("the race broke the partnership")
		}
	})
}

// TestGenerateCodeDrawsAgainOnACollision: a drawn code someone else holds is
// drawn again rather than refused.
func TestGenerateCodeDrawsAgainOnACollision(t *testing.T) {
	t.Parallel()
	repo := memory.NewPartnerRepo()
	busy := &takenOnce{PartnerRepo: repo}
	f := newFixtureOn(repo, busy)
	c, err := f.svc.GenerateCode(ctx, "a")
	if err != nil || busy.calls != 2 || c.Code == "" {
		t.Fatalf("%+v %v after %d calls", c, err, busy.calls)
	}
}

func TestGenerateCodeGivesUpAfterFiveTakenDraws(t *testing.T) {
	t.Parallel()
	repo := memory.NewPartnerRepo()
	busy := &takenOnce{PartnerRepo: repo, always: true}
	f := newFixtureOn(repo, busy)
	_, err := f.svc.GenerateCode(ctx, "a")
	if core.KindOf(err) != core.KindInternal || busy.calls != 5 {
		t.Fatalf("%v after %d calls", err, busy.calls)
	}
}

type takenOnce struct {
	*memory.PartnerRepo
	always bool
	calls  int
}

func (r *takenOnce) PutPairingCode(ctx context.Context, c partners.PairingCode) error {
	r.calls++
	if r.calls == 1 || r.always {
		return core.Conflict("conflict", "partners.pairingCodeTaken", "pairing code taken")
	}
	return r.PartnerRepo.PutPairingCode(ctx, c)
}

func TestConnectionOfACouplePairedByPairingCode(t *testing.T) {
	f := newFixture(t)
	f.pairByCodes(t, "a", "b")
	v, err := f.svc.Connection(context.Background(), "a")
	if err != nil || v != (partners.ConnectionView{UserID: "a", PartnerID: "b"}) {
		t.Fatalf("got %+v %v, want the partner and no code", v, err)
	}
}

// TestConnectionCodesIgnoreCase: one code whatever its case; a link finds it
// as typed in any case and the owner keeps their spelling.
func TestConnectionCodesIgnoreCase(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	if _, err := f.create("a", "Zq7w-Our-Code-1"); err != nil {
		t.Fatal(err)
	}
	_, err := f.create("b", "zq7w-our-code-1")
	coretest.WantErr(t, err, core.KindConflict, "conflict")
	if _, err := f.create("a", "ZQ7W-OUR-CODE-1"); err != nil { // the owner may respell their own code
		t.Fatal(err)
	}
	partner, err := f.linkWith("b", "zq7w-our-CODE-1")
	if err != nil || partner != "a" {
		t.Fatalf("%q %v", partner, err)
	}
	if v, _ := f.svc.Connection(ctx, "b"); v.Code != "ZQ7W-OUR-CODE-1" {
		t.Fatalf("%+v", v)
	}
}

// TestStoredShortCodesStillLink: a code of 4 stored under the earlier rule
// links (in any case); it cannot be created any more.
func TestStoredShortCodesStillLink(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	if err := f.repo.PutConnection(ctx, partners.Connection{ID: "old", UserID: "a", Code: "AbCd",
		CreatedAt: f.clock.Now(), ExpiresAt: f.clock.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	_, err := f.create("c", "wxyz")
	coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
	_, err = f.linkWith("b", "abc")
	coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
	if partner, err := f.linkWith("b", "abcd"); err != nil || partner != "a" {
		t.Fatalf("%q %v", partner, err)
	}
}

// TestLinkNotifiesTheOwner: the owner hears of a link (partnerActivity) with
// the way out; a failed notification leaves the link standing.
func TestLinkNotifiesTheOwner(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.link(t, "a", "b")
	got := f.notes.all()
	if len(got) != 1 || got[0].user != "a" || got[0].category != "partnerActivity" || got[0].title == "" ||
		!strings.Contains(got[0].message, "unlink") {
		t.Fatalf("notes %+v", got)
	}

	f = newFixture(t)
	f.notes.fail = core.Unavailable("unavailable", "partners.pushDown", "push is down")
	f.link(t, "a", "b")
	if f.partner(t, "a") != "b" {
		t.Fatal("a failed notification undid the link")
	}

	f = newFixture(t)
	f.pairByCodes(t, "a", "b") // pairing codes need both to act: nothing to warn of
	f.create("c", "zq7w-conn-code-c")
	f.linkWith("d", "nobody-has-it")
	if got := f.notes.all(); len(got) != 0 {
		t.Fatalf("notes %+v", got)
	}
}

// TestWeakConnectionCodesAreRefused: a chosen code a guesser tries first is
// refused with the reason and stores nothing, so no one links with it; the
// refusal is not counted as an attempt. Issue 27: "password" was linked on
// the first try.
func TestWeakConnectionCodesAreRefused(t *testing.T) {
	t.Parallel()
	repo := memory.NewPartnerRepo()
	f := newFixtureWith(repo, repo, partners.Settings{FailsPerUser: 3, FailsPerIP: 5})
	for _, code := range []string{"password", "PASSWORD", "qwertyuiop", "aaaaaaaa", "12345678", "abcdefgh", "iloveyou"} {
		_, err := f.create("a", code)
		coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
		if msg := core.As(err).Message; !strings.HasPrefix(msg, "connectionCode is too easy to guess: it contains ") {
			t.Errorf("%q: %q", code, msg)
		}
		if _, err := repo.ConnectionOf(ctx, "a"); !core.IsKind(err, core.KindNotFound) {
			t.Fatalf("%q stored: %v", code, err)
		}
		_, err = f.linkWith("b", code)
		coretest.WantErr(t, err, core.KindNotFound, "not_found")
		f.clock.Advance(partners.FailWindow) // b's misses must not run into the limit
	}
	for i := range 3 { // a's refusals were not counted: the limit is untouched
		if _, err := f.create("a", fmt.Sprintf("zq7w-strong-%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if partner, err := f.linkWith("b", "zq7w-strong-2"); err != nil || partner != "a" {
		t.Fatalf("%q %v", partner, err)
	}
}

// TestCreateWithoutACodeDrawsOne: no code draws one (three groups of four
// characters without look-alikes), stores it for the TTL, and another user
// links with it in any case; drawing probes nothing, so it is not counted.
func TestCreateWithoutACodeDrawsOne(t *testing.T) {
	t.Parallel()
	repo := memory.NewPartnerRepo()
	f := newFixtureWith(repo, repo, partners.Settings{FailsPerUser: 3, FailsPerIP: 5, ConnectionCodeTTL: time.Hour})
	var c partners.Connection
	for range 5 {
		var err error
		if c, err = f.create("a", ""); err != nil {
			t.Fatal(err)
		}
	}
	if len(c.Code) < 10 || strings.ContainsAny(c.Code, "0O1Il") || !c.ExpiresAt.Equal(f.clock.Now().Add(time.Hour)) {
		t.Fatalf("drew %+v", c)
	}
	if stored, err := repo.ConnectionOf(ctx, "a"); err != nil || stored != c {
		t.Fatalf("stored %+v %v", stored, err)
	}
	if partner, err := f.linkWith("b", strings.ToLower(c.Code)); err != nil || partner != "a" {
		t.Fatalf("%q %v", partner, err)
	}
	if v, err := f.svc.Connection(ctx, "b"); err != nil || v.Code != c.Code {
		t.Fatalf("%+v %v", v, err)
	}
}

// TestConnectionCodesExpire: from its expiry on a code links no one, with
// the answer of an unknown code, counted as a failed guess; its unpaired
// owner no longer sees it; the purge deletes it unless its owner is paired.
func TestConnectionCodesExpire(t *testing.T) {
	t.Parallel()
	repo := memory.NewPartnerRepo()
	ttl := 48 * time.Hour
	f := newFixtureWith(repo, repo, partners.Settings{FailsPerUser: 3, FailsPerIP: 30, ConnectionCodeTTL: ttl})
	for _, u := range []string{"a", "c"} {
		if _, err := f.create(u, "zq7w-code-of-"+u); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.linkWith("d", "zq7w-code-of-c"); err != nil { // c is paired: c's code stays
		t.Fatal(err)
	}
	f.clock.Advance(ttl - time.Millisecond)
	if v, err := f.svc.Connection(ctx, "a"); err != nil || v.Code != "zq7w-code-of-a" {
		t.Fatalf("before expiry: %+v %v", v, err)
	}
	if n, err := f.svc.PurgeExpiredConnections(ctx); err != nil || n != 0 {
		t.Fatalf("purge before expiry: %d %v", n, err)
	}
	f.clock.Advance(time.Millisecond)

	for i := range 3 {
		_, expired := f.linkWith("b", "zq7w-code-of-a")
		_, unknown := f.linkWith("e", fmt.Sprintf("zq7w-nobody-%d", i))
		coretest.WantErr(t, expired, core.KindNotFound, "not_found")
		if e, u := core.As(expired), core.As(unknown); e.Kind != u.Kind || e.Code != u.Code || e.Message != u.Message {
			t.Fatalf("expired %#v, unknown %#v", core.As(expired), core.As(unknown))
		}
	}
	_, err := f.linkWith("b", "zq7w-code-of-a")
	wantLimited(t, err) // each expired code was a failed guess
	if f.partner(t, "a") != "" || len(f.notes.all()) != 1 {
		t.Fatal("an expired code linked")
	}
	_, err = f.svc.Connection(ctx, "a")
	coretest.WantErr(t, err, core.KindNotFound, "not_found")
	if v, err := f.svc.Connection(ctx, "d"); err != nil || v.Code != "zq7w-code-of-c" {
		t.Fatalf("the paired partner's view: %+v %v", v, err)
	}

	if n, err := f.svc.PurgeExpiredConnections(ctx); err != nil || n != 1 {
		t.Fatalf("purge: %d %v", n, err)
	}
	if _, err := repo.ConnectionOf(ctx, "a"); !core.IsKind(err, core.KindNotFound) {
		t.Fatalf("a's code survived: %v", err)
	}
	if _, err := repo.ConnectionOf(ctx, "c"); err != nil {
		t.Fatalf("the paired owner's code went: %v", err)
	}
	f.clock.Advance(partners.FailWindow) // e's misses are forgotten; a new code of a's links again
	if _, err := f.create("a", "zq7w-code-of-a"); err != nil {
		t.Fatal(err)
	}
	if partner, err := f.linkWith("e", "zq7w-code-of-a"); err != nil || partner != "a" {
		t.Fatalf("%q %v", partner, err)
	}
}
