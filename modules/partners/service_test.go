package partners_test

import (
	"context"
	"slices"
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

// facts are the domain events published, the live ones and the feed's
// changes left out (see TestPairingIsAnnouncedLive).
func facts(bus *coretest.Events) []core.Event {
	return slices.DeleteFunc(bus.Others(), func(e core.Event) bool { _, live := e.(core.Live); return live })
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
