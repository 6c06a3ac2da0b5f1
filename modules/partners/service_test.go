package partners_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"tandem/adapters/i18n"
	"tandem/adapters/memory"
	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/partners"
	"tandem/modules/throttle"
)

var ctx = context.Background()

// fixture is a Service on the memory repository with a fixed clock, counted
// ids, a recording bus and notifier, and the default attempt limits on a
// memory limiter.
type fixture struct {
	svc   *partners.Service
	repo  *memory.PartnerRepo
	clock *coretest.FixedClock
	bus   *coretest.Events
	notes *notes
}

// defaultLimits are the configuration's defaults.
var defaultLimits = partners.Settings{FailsPerUser: 10, FailsPerIP: 30}

// testIP is the client address of every attempt unless a test names one.
const testIP = "198.51.100.7"

func newFixture(t *testing.T) *fixture {
	t.Helper()
	repo := memory.NewPartnerRepo()
	return newFixtureWith(repo, repo, defaultLimits)
}

// newFixtureOn lets a test put a fault-injecting wrapper in front of repo.
func newFixtureOn(repo *memory.PartnerRepo, port partners.Repository) *fixture {
	return newFixtureWith(repo, port, defaultLimits)
}

func newFixtureWith(repo *memory.PartnerRepo, port partners.Repository, limits partners.Settings) *fixture {
	f := &fixture{repo: repo, clock: coretest.NewClock(time.Time{}), bus: &coretest.Events{}, notes: &notes{}}
	limiter := throttle.NewLimiter(memory.NewThrottleRepo(), f.clock)
	f.svc = partners.NewService(port, f.notes, limiter, limits, f.bus, f.clock, &coretest.SeqIDs{})
	return f
}

// notes records notifications; fail makes Notify fail after recording.
type notes struct {
	mu   sync.Mutex
	got  []note
	fail error
}

type note struct{ user, category, title, message string }

// english writes the notifications as the English reader reads them.
var english = i18n.MustLoad(nil)

func (n *notes) Notify(_ context.Context, userID, category string, text core.Message) error {
	title, message := english.Note("en", text)
	n.mu.Lock()
	defer n.mu.Unlock()
	n.got = append(n.got, note{userID, category, title, message})
	return n.fail
}

func (n *notes) all() []note {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.got)
}

// The service's calls with the test's client IP.
func (f *fixture) create(user, code string) (partners.Connection, error) {
	return f.svc.CreateConnection(ctx, user, code, testIP)
}

func (f *fixture) linkWith(user, code string) (string, error) {
	return f.svc.Link(ctx, user, code, testIP)
}

func (f *fixture) submit(user, code string) (partners.SubmitOutcome, error) {
	return f.svc.SubmitCode(ctx, user, code, testIP)
}

func (f *fixture) code(t *testing.T, user string) string {
	t.Helper()
	c, err := f.svc.GenerateCode(ctx, user)
	if err != nil {
		t.Fatal(err)
	}
	return c.Code
}

// pairByCodes connects a and b through the pairing flow.
func (f *fixture) pairByCodes(t *testing.T, a, b string) {
	t.Helper()
	ca, cb := f.code(t, a), f.code(t, b)
	if out, err := f.submit(a, cb); err != nil || out.Connected {
		t.Fatalf("first submit: %+v %v", out, err)
	}
	if out, err := f.submit(b, ca); err != nil || !out.Connected {
		t.Fatalf("second submit: %+v %v", out, err)
	}
}

// link connects b to a through a's connection code.
func (f *fixture) link(t *testing.T, a, b string) {
	t.Helper()
	if _, err := f.create(a, "zq7w-conn-code-"+a); err != nil {
		t.Fatal(err)
	}
	if _, err := f.linkWith(b, "zq7w-conn-code-"+a); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) status(t *testing.T, user string) partners.Status {
	t.Helper()
	s, err := f.svc.Status(ctx, user)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (f *fixture) partner(t *testing.T, user string) string {
	t.Helper()
	p, ok, err := f.svc.PartnerOf(ctx, user)
	if err != nil || ok != (p != "") {
		t.Fatalf("PartnerOf %s: %q %v %v", user, p, ok, err)
	}
	return p
}

// facts are the domain events published, the live ones left out (see
// TestPairingIsAnnouncedLive).
func facts(bus *coretest.Events) []core.Event {
	return slices.DeleteFunc(bus.All(), func(e core.Event) bool { _, live := e.(core.Live); return live })
}

func wantEvents(t *testing.T, bus *coretest.Events, want ...core.Event) {
	t.Helper()
	got := facts(bus)
	if len(got) != len(want) {
		t.Fatalf("events %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("event %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

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
		return core.Conflict("conflict", "pairing code taken")
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

// attemptFlow is one of the three code routes with a wrong and a right attempt.
type attemptFlow struct {
	name string
	// arrange gives "owner" a code and returns it; wrong is an attempt that
	// fails (the i-th, so each guess differs) and its error.
	arrange func(t *testing.T, f *fixture) string
	attempt func(f *fixture, user, code, ip string) error
	wrong   func(i int) string
	missed  func(t *testing.T, err error)
}

var attemptFlows = []attemptFlow{
	{name: "link",
		arrange: func(t *testing.T, f *fixture) string {
			if _, err := f.create("owner", "zq7w-owner-code-1"); err != nil {
				t.Fatal(err)
			}
			return "zq7w-owner-code-1"
		},
		attempt: func(f *fixture, user, code, ip string) error { _, err := f.svc.Link(ctx, user, code, ip); return err },
		wrong:   func(i int) string { return fmt.Sprintf("zq7w-guess-%04d", i) },
		missed:  func(t *testing.T, err error) { coretest.WantErr(t, err, core.KindNotFound, "not_found") }},
	{name: "submit-code",
		arrange: func(t *testing.T, f *fixture) string { return f.code(t, "owner") },
		attempt: func(f *fixture, user, code, ip string) error {
			_, err := f.svc.SubmitCode(ctx, user, code, ip)
			return err
		},
		wrong: func(i int) string {
			const abc = partners.PairingCodeAlphabet
			return "ZZ" + string(abc[i/len(abc)%len(abc)]) + string(abc[i%len(abc)]) + "ZZ"
		},
		missed: func(t *testing.T, err error) { coretest.WantErr(t, err, core.KindInvalid, "invalid_pairing_code") }},
	{name: "create (a taken code)",
		arrange: func(t *testing.T, f *fixture) string {
			for i := range 50 { // codes the guesser will find taken, each created from its holder's own IP
				holder, holderIP := fmt.Sprintf("holder-%d", i), fmt.Sprintf("198.51.100.%d", i)
				if _, err := f.svc.CreateConnection(ctx, holder, fmt.Sprintf("zq7w-guess-%04d", i), holderIP); err != nil {
					t.Fatal(err)
				}
			}
			return "zq7w-free-code-1"
		},
		attempt: func(f *fixture, user, code, ip string) error {
			_, err := f.svc.CreateConnection(ctx, user, code, ip)
			return err
		},
		wrong:  func(i int) string { return fmt.Sprintf("zq7w-guess-%04d", i) },
		missed: func(t *testing.T, err error) { coretest.WantErr(t, err, core.KindConflict, "conflict") }},
}

func wantLimited(t *testing.T, err error) {
	t.Helper()
	e := core.As(err)
	if err == nil || e.Kind != core.KindRateLimited || e.Code != "rate_limited" || e.RetryAfter <= 0 {
		t.Fatalf("want 429 rate_limited with Retry-After, got %v", err)
	}
}

// TestFailedCodeAttemptsAreLimited: per user and per client IP, failed
// attempts stop at the limit, the right code included; answers that name
// another user's code give the attempt back; the window ends.
func TestFailedCodeAttemptsAreLimited(t *testing.T) {
	t.Parallel()
	limits := partners.Settings{FailsPerUser: 3, FailsPerIP: 5}
	for _, fl := range attemptFlows {
		t.Run(fl.name, func(t *testing.T) {
			repo := memory.NewPartnerRepo()
			f := newFixtureWith(repo, repo, limits)
			right := fl.arrange(t, f)
			const ip, otherIP = "203.0.113.1", "203.0.113.2"
			for i := range 3 {
				fl.missed(t, fl.attempt(f, "x", fl.wrong(i), ip))
			}
			wantLimited(t, fl.attempt(f, "x", fl.wrong(3), ip))
			wantLimited(t, fl.attempt(f, "x", right, otherIP)) // the user is spent from any IP, right code or not
			if s := f.status(t, "owner"); s.State != partners.StateUnpaired || f.partner(t, "x") != "" {
				t.Fatalf("owner %+v", s)
			}
			if len(f.notes.all()) != 0 || len(facts(f.bus)) != 0 {
				t.Fatal("a refused attempt left a trace")
			}

			// the IP: x's 3 failures count, the refused ones do not
			fl.missed(t, fl.attempt(f, "y", fl.wrong(10), ip))
			fl.missed(t, fl.attempt(f, "y", fl.wrong(11), ip))
			wantLimited(t, fl.attempt(f, "y", fl.wrong(12), ip))
			// y's attempt refused by the IP is not counted against y: 2 of 3 spent
			if err := fl.attempt(f, "y", right, otherIP); err != nil {
				t.Fatalf("y from another IP: %v", err)
			}

			f.clock.Advance(partners.FailWindow)
			fl.missed(t, fl.attempt(f, "x", fl.wrong(20), ip))
		})
	}

	t.Run("another user's code gives the attempt back", func(t *testing.T) {
		repo := memory.NewPartnerRepo()
		f := newFixtureWith(repo, repo, limits)
		f.link(t, "a", "b")
		cc := f.code(t, "c")
		for range 10 {
			_, err := f.linkWith("x", "zq7w-conn-code-a")
			coretest.WantErr(t, err, core.KindConflict, "already_paired")
			if _, err := f.submit("x", cc); err != nil {
				t.Fatal(err)
			}
		}
		_, err := f.linkWith("x", "nobody-has-it")
		coretest.WantErr(t, err, core.KindNotFound, "not_found")
	})

	t.Run("every create counts: a free code is a probe too", func(t *testing.T) {
		repo := memory.NewPartnerRepo()
		f := newFixtureWith(repo, repo, limits)
		for i := range 3 {
			if _, err := f.create("x", fmt.Sprintf("zq7w-free-code-%d", i)); err != nil {
				t.Fatal(err)
			}
		}
		_, err := f.create("x", "zq7w-free-code-3")
		wantLimited(t, err)
		if got, err := repo.ConnectionOf(ctx, "x"); err != nil || got.Code != "zq7w-free-code-2" {
			t.Fatalf("stored %+v, %v", got, err)
		}
	})

	t.Run("checks that need no lookup come first and are not counted", func(t *testing.T) {
		repo := memory.NewPartnerRepo()
		f := newFixtureWith(repo, repo, limits)
		f.link(t, "a", "b")
		for range 10 {
			_, err := f.linkWith("x", "x")
			coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
			_, err = f.submit("x", "not a code")
			coretest.WantErr(t, err, core.KindInvalid, "invalid_pairing_code")
			_, err = f.create("x", "short")
			coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
			_, err = f.create("x", "password") // too easy to guess: says nothing of others' codes
			coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
			_, err = f.linkWith("b", "nobody-has-it")
			coretest.WantErr(t, err, core.KindConflict, "already_paired")
		}
		_, err := f.linkWith("x", "nobody-has-it")
		coretest.WantErr(t, err, core.KindNotFound, "not_found")
	})
}

// TestConcurrentGuessesStopAtTheLimit: the attempt is reserved before the
// lookup, so a burst cannot pass the limit.
func TestConcurrentGuessesStopAtTheLimit(t *testing.T) {
	t.Parallel()
	repo := memory.NewPartnerRepo()
	f := newFixtureWith(repo, repo, partners.Settings{FailsPerUser: 10, FailsPerIP: 30})
	errs := make([]error, 30)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = f.linkWith("x", fmt.Sprintf("zq7w-guess-%04d", i))
		}()
	}
	wg.Wait()
	missed := 0
	for _, err := range errs {
		if !core.IsKind(err, core.KindRateLimited) {
			coretest.WantErr(t, err, core.KindNotFound, "not_found")
			missed++
		}
	}
	if missed != 10 {
		t.Fatalf("%d guesses answered, want 10", missed)
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
	f.notes.fail = core.Unavailable("unavailable", "push is down")
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

// TestPairingIsAnnouncedLive: every change to a pairing status is a
// pairing.changed live event for exactly the users whose status changed,
// each with their own status as their GET returns it after the change;
// the end of a partnership is a partnership.ended event for both former
// partners, each naming the other. Nobody else ever hears of it (the
// deleted account's status included), and a refused attempt announces
// nothing.
func TestPairingIsAnnouncedLive(t *testing.T) {
	t.Parallel()
	type want struct {
		typ     string
		readers []string
	}
	changed := func(users ...string) want { return want{"pairing.changed", users} }
	ended := want{typ: "partnership.ended", readers: []string{"a", "b"}}
	cases := []struct {
		name    string
		arrange func(t *testing.T, f *fixture) // e and g are partners, and x holds a code nobody uses, throughout
		act     func(t *testing.T, f *fixture) error
		want    []want
	}{
		{name: "generate-code: the user alone",
			act:  func(t *testing.T, f *fixture) error { _, err := f.svc.GenerateCode(ctx, "a"); return err },
			want: []want{changed("a")}},
		{name: "submit: the submitter (outgoing) and the code's owner (incoming)",
			arrange: func(t *testing.T, f *fixture) { f.code(t, "b") },
			act:     func(t *testing.T, f *fixture) error { _, err := f.submit("a", codeOf(t, f, "b")); return err },
			want:    []want{changed("a", "b")}},
		{name: "submit again to someone else: the one whose request it replaced too",
			arrange: func(t *testing.T, f *fixture) { f.submit("a", f.code(t, "b")); f.code(t, "c") },
			act:     func(t *testing.T, f *fixture) error { _, err := f.submit("a", codeOf(t, f, "c")); return err },
			want:    []want{changed("a", "c", "b")}},
		{name: "connected: both, and whoever waited on either",
			arrange: func(t *testing.T, f *fixture) {
				cb := f.code(t, "b")
				f.submit("a", cb)
				f.submit("w", f.code(t, "a")) // w waits on a; the connection clears it
				f.submit("v", cb)             // and v on b
			},
			act:  func(t *testing.T, f *fixture) error { _, err := f.submit("b", codeOf(t, f, "a")); return err },
			want: []want{changed("b", "a", "w", "v")}},
		{name: "link: both, and whoever waited on either",
			arrange: func(t *testing.T, f *fixture) {
				f.create("a", "zq7w-conn-code-a")
				f.submit("w", f.code(t, "a"))
			},
			act:  func(t *testing.T, f *fixture) error { _, err := f.linkWith("b", "zq7w-conn-code-a"); return err },
			want: []want{changed("b", "a", "w")}},
		{name: "unpair: ended for both, and both statuses",
			arrange: func(t *testing.T, f *fixture) { f.pairByCodes(t, "a", "b") },
			act:     func(t *testing.T, f *fixture) error { return f.svc.Unpair(ctx, "b") },
			want:    []want{ended, changed("a", "b")}},
		{name: "unlink: ended for both, and both statuses",
			arrange: func(t *testing.T, f *fixture) { f.link(t, "a", "b") },
			act:     func(t *testing.T, f *fixture) error { return f.svc.Unlink(ctx, "a") },
			want:    []want{ended, changed("a", "b")}},
		{name: "account deleted while paired: ended for both, the partner's status only",
			arrange: func(t *testing.T, f *fixture) { f.pairByCodes(t, "a", "b") },
			act:     func(t *testing.T, f *fixture) error { return f.svc.PurgeUser(ctx, "a") },
			want:    []want{ended, changed("b")}},
		{name: "account deleted while pending: the others of its requests only",
			arrange: func(t *testing.T, f *fixture) {
				f.submit("a", f.code(t, "b"))
				f.submit("c", f.code(t, "a"))
			},
			act:  func(t *testing.T, f *fixture) error { return f.svc.PurgeUser(ctx, "a") },
			want: []want{changed("b", "c")}},
		{name: "account deleted with nothing pending: nobody",
			act: func(t *testing.T, f *fixture) error { return f.svc.PurgeUser(ctx, "a") }},
		{name: "own code refused: nothing",
			arrange: func(t *testing.T, f *fixture) { f.code(t, "a") },
			act:     func(t *testing.T, f *fixture) error { _, err := f.submit("a", codeOf(t, f, "a")); return err }},
		{name: "unknown code refused: nothing",
			act: func(t *testing.T, f *fixture) error { _, err := f.submit("a", "ZZZZZZ"); return err }},
		{name: "a paired user's submit refused: nothing", arrange: func(t *testing.T, f *fixture) { f.code(t, "a") },
			act: func(t *testing.T, f *fixture) error { _, err := f.submit("e", codeOf(t, f, "a")); return err }},
		{name: "a paired owner's code refused: nothing",
			act: func(t *testing.T, f *fixture) error { _, err := f.linkWith("a", "zq7w-conn-code-e"); return err }},
		{name: "unpair while unpaired refused: nothing",
			act: func(t *testing.T, f *fixture) error { return f.svc.Unpair(ctx, "a") }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			if _, err := f.create("e", "zq7w-conn-code-e"); err != nil {
				t.Fatal(err)
			}
			f.pairByCodes(t, "e", "g")
			f.code(t, "x")
			if tc.arrange != nil {
				tc.arrange(t, f)
			}
			f.clock.Advance(time.Minute)
			f.bus.Reset()
			err := tc.act(t, f)
			if len(tc.want) == 0 {
				f.bus.WantLive(t)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var lives []core.Live
			for _, w := range tc.want {
				l := core.Live{Type: w.typ, For: map[string]any{}}
				for _, u := range w.readers {
					if w.typ == "partnership.ended" {
						other := map[string]string{"a": "b", "b": "a"}[u]
						l.For[u] = partners.Ended{PartnerID: other}
						continue
					}
					l.For[u] = f.status(t, u) // what the user's own GET returns
				}
				lives = append(lives, l)
			}
			f.bus.WantLive(t, lives...)
		})
	}
}

// codeOf is the user's current pairing code, read without generating one.
func codeOf(t *testing.T, f *fixture, user string) string {
	t.Helper()
	st := f.status(t, user)
	if st.MyCode == nil {
		t.Fatalf("%s has no code", user)
	}
	return st.MyCode.Code
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
		if msg := core.As(err).Message; !strings.HasPrefix(msg, "connectionCode is too easy to guess: it is ") {
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
