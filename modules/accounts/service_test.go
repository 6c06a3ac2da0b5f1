package accounts_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"tandem/adapters/i18n"
	"tandem/adapters/memory"
	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/accounts"
	"tandem/modules/throttle"
)

// fixture is a Service on memory fakes with a fixed clock.
type fixture struct {
	svc    *accounts.Service
	sender *accounts.Sender
	log    *mailLog
	repo   *memory.AccountRepo
	clock  *coretest.FixedClock
	mail   *outbox
	cache  *mapCache
	bus    *coretest.Events
	tokens fakeIDTokens
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{repo: memory.NewAccountRepo(), clock: coretest.NewClock(time.Time{}), mail: &outbox{},
		cache: &mapCache{m: map[string]accounts.Session{}}, bus: &coretest.Events{}, tokens: fakeIDTokens{}}
	ids := &coretest.SeqIDs{}
	f.log = &mailLog{}
	sender := accounts.NewSender(f.repo, f.mail, f.log, f.clock, ids, accounts.SenderSettings{})
	f.sender = sender
	svc, err := accounts.NewService(accounts.Deps{Repo: f.repo, Sender: sender, Hasher: plainHasher{},
		Cache: f.cache, Limiter: throttle.NewLimiter(memory.NewThrottleRepo(), f.clock), Bus: f.bus,
		Clock: f.clock, IDs: ids, Admins: accounts.Admins{"Boss@X.io"}, IDTokens: f.tokens, Texts: i18n.MustLoad(nil)})
	if err != nil {
		t.Fatal(err)
	}
	f.svc = svc
	// The service only queues mail; reading the mailbox first runs the
	// Sender's pass, as the woken sender would.
	f.mail.deliver = func() {
		if _, err := sender.SendDue(context.Background()); err != nil {
			t.Error(err)
		}
	}
	return f
}

// verified signs up and verifies, returning the user id and token.
func (f *fixture) verified(t *testing.T, email string) (string, string) {
	t.Helper()
	id, err := f.svc.SignUp(context.Background(), email, "password1", cl)
	if err != nil {
		t.Fatal(err)
	}
	v, err := f.svc.VerifyEmail(context.Background(), id, f.mail.code(t, email), cl)
	if err != nil {
		t.Fatal(err)
	}
	if !v.PasswordRequired {
		return id, v.Token
	}
	// An administrator sets the password after proving the address.
	tok, err := f.svc.ChangePassword(context.Background(), id, f.clock.Now(), "", "password1", cl)
	if err != nil {
		t.Fatal(err)
	}
	return id, tok
}

func TestProfileAndDeletion(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	id, tok := f.verified(t, "a@x.io")
	name, tz, bad := " Ann ", "Europe/Paris", "Mars/Olympus"
	a, err := f.svc.UpdateProfile(ctx, id, accounts.ProfilePatch{DisplayName: &name, Timezone: &tz})
	if err != nil || a.DisplayName != "Ann" || a.Timezone != tz {
		t.Fatalf("%+v %v", a, err)
	}
	_, err = f.svc.UpdateProfile(ctx, id, accounts.ProfilePatch{Timezone: &bad})
	coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
	loc, _ := f.svc.Location(ctx, id)
	if loc.String() != tz {
		t.Fatalf("location %s", loc)
	}

	owner := &recordingOwner{}
	f.svc.AddDataOwners(owner)
	if err := f.svc.Delete(ctx, id); err != nil {
		t.Fatal(err)
	}
	if owner.purged != id {
		t.Fatal("owners purge the user's data")
	}
	_, err = f.svc.Authenticate(ctx, tok)
	coretest.WantErr(t, err, core.KindUnauthorized, "unauthorized")
	if ev := f.bus.Others(); len(ev) != 3 || ev[0] != (core.WaysInEnded{UserID: id, At: f.clock.Now(), Unproven: true}) ||
		ev[2] != (core.AccountDeleted{UserID: id}) {
		t.Fatalf("events %v", ev)
	}
}

// TestTimezoneChangeIsPublished: a profile update that changes the timezone
// publishes TimezoneChanged (modules that keep local times recompute them);
// one that keeps it, or is refused, publishes nothing.
func TestTimezoneChangeIsPublished(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	id, _ := f.verified(t, "a@x.io")
	str := func(s string) *string { return &s }
	cases := []struct {
		name  string
		patch accounts.ProfilePatch
		want  []core.Event
	}{
		{"set", accounts.ProfilePatch{Timezone: str("Europe/Berlin")}, []core.Event{core.TimezoneChanged{UserID: id, Timezone: "Europe/Berlin"}}},
		{"the same again", accounts.ProfilePatch{Timezone: str("Europe/Berlin"), DisplayName: str("Ann")}, nil},
		{"name only", accounts.ProfilePatch{DisplayName: str("Anna")}, nil},
		{"refused", accounts.ProfilePatch{Timezone: str("Mars/Olympus")}, nil},
		{"another", accounts.ProfilePatch{Timezone: str("America/New_York")}, []core.Event{core.TimezoneChanged{UserID: id, Timezone: "America/New_York"}}},
		{"back to UTC", accounts.ProfilePatch{Timezone: str("")}, []core.Event{core.TimezoneChanged{UserID: id}}},
	}
	for _, tc := range cases {
		before, changes := len(f.bus.Others()), len(f.bus.Changes())
		_, err := f.svc.UpdateProfile(ctx, id, tc.patch)
		if got := f.bus.Others()[before:]; fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Fatalf("%s: events %v, want %v", tc.name, got, tc.want)
		}
		// the feed: the owner's profile, with each update that stood
		if got, want := f.bus.Changes()[changes:], []string{id + " profile " + id + " put"}; err == nil && fmt.Sprint(got) != fmt.Sprint(want) ||
			err != nil && len(got) != 0 {
			t.Fatalf("%s (err %v): the feed's changes %v", tc.name, err, got)
		}
	}
}

// TestNicknameRules: the nickname follows displayName's rules (trimmed, one
// line, at most MaxNickname characters); a refused one changes nothing, ""
// removes it, and a patch without it keeps it.
func TestNicknameRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	id, _ := f.verified(t, "a@x.io")
	str := func(s string) *string { return &s }
	forty := strings.Repeat("ñ", accounts.MaxNickname)
	cases := []struct {
		name  string
		patch accounts.ProfilePatch
		want  string // the stored nickname after the patch
		msg   string // the refusal's message; "" when accepted
	}{
		{"set, trimmed", accounts.ProfilePatch{Nickname: str("  Nan ")}, "Nan", ""},
		{"at the limit", accounts.ProfilePatch{Nickname: str(forty)}, forty, ""},
		{"kept by a patch without it", accounts.ProfilePatch{DisplayName: str("Ann")}, forty, ""},
		{"one too long", accounts.ProfilePatch{Nickname: str(forty + "x")}, forty, "nickname must be at most 40 characters"},
		{"spaces do not count", accounts.ProfilePatch{Nickname: str(" " + forty + " ")}, forty, ""},
		{"a newline", accounts.ProfilePatch{Nickname: str("Na\nn")}, forty,
			"nickname must not contain control characters (tab and newline included)"},
		{"a bidi override", accounts.ProfilePatch{Nickname: str("Na\u202en")}, forty,
			"nickname must not contain bidirectional override or isolate characters"},
		{"invalid UTF-8", accounts.ProfilePatch{Nickname: str("Na\xffn")}, forty, "nickname must be valid UTF-8"},
		{"refused with a good name", accounts.ProfilePatch{DisplayName: str("Bea"), Nickname: str(forty + "x")}, forty,
			"nickname must be at most 40 characters"},
		{"removed", accounts.ProfilePatch{Nickname: str("")}, "", ""},
	}
	for _, tc := range cases {
		_, err := f.svc.UpdateProfile(ctx, id, tc.patch)
		if tc.msg != "" {
			coretest.WantErrMessage(t, err, core.KindInvalid, "invalid_request", tc.msg)
		} else if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		a, err := f.svc.Profile(ctx, id)
		if err != nil || a.Nickname != tc.want {
			t.Fatalf("%s: stored %+v %v, want the nickname %q", tc.name, a, err, tc.want)
		}
	}
	if a, _ := f.svc.Profile(ctx, id); a.DisplayName != "Ann" {
		t.Fatalf("displayName %q: a refused patch stored its other field", a.DisplayName)
	}
}

type recordingOwner struct{ purged string }

func (*recordingOwner) Section() string                                 { return "test" }
func (*recordingOwner) ExportUser(context.Context, string) (any, error) { return nil, nil }
func (o *recordingOwner) PurgeUser(_ context.Context, userID string) error {
	o.purged = userID
	return nil
}

// plainHasher keeps rule tests fast; the argon2id adapter has its own tests.
type plainHasher struct{}

func (plainHasher) Hash(p string) (string, error)    { return "plain:" + p, nil }
func (plainHasher) Verify(h, p string) (bool, error) { return h == "plain:"+p, nil }
func (plainHasher) Decoy() (string, error)           { return "decoy", nil }

type mapCache struct {
	mu sync.Mutex
	m  map[string]accounts.Session
}

func (c *mapCache) Get(h string) (accounts.Session, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.m[h]
	return s, ok
}
func (c *mapCache) Put(h string, s accounts.Session) { c.mu.Lock(); c.m[h] = s; c.mu.Unlock() }
func (c *mapCache) Forget(hs ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, h := range hs {
		delete(c.m, h)
	}
}

// outbox is the mailbox: it records what the Sender sends, and runs the
// Sender's pass (deliver) before each read.
type outbox struct {
	mu      sync.Mutex
	mails   []accounts.Mail
	fail    error // Send's answer while set
	deliver func()
}

func (o *outbox) Send(_ context.Context, m accounts.Mail) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.fail != nil {
		return o.fail
	}
	o.mails = append(o.mails, m)
	return nil
}

func (o *outbox) failWith(err error) {
	o.mu.Lock()
	o.fail = err
	o.mu.Unlock()
}

func (o *outbox) all() []accounts.Mail {
	if o.deliver != nil {
		o.deliver()
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]accounts.Mail(nil), o.mails...)
}

var sixDigits = regexp.MustCompile(`\b\d{6}\b`)

func (o *outbox) code(t *testing.T, to string) string {
	t.Helper()
	all := o.all()
	for i := len(all) - 1; i >= 0; i-- {
		if all[i].To == to {
			return sixDigits.FindString(all[i].Text)
		}
	}
	t.Fatalf("no mail to %s", to)
	return ""
}

// cl is the client of every request in these tests.
var cl = accounts.Client{IP: "198.51.100.7", UserAgent: "tandem-test/1.0"}

// orderedOwner notes its name in order when it purges.
type orderedOwner struct {
	name  string
	order *[]string
}

func (o orderedOwner) Section() string                               { return o.name }
func (orderedOwner) ExportUser(context.Context, string) (any, error) { return nil, nil }
func (o orderedOwner) PurgeUser(context.Context, string) error {
	*o.order = append(*o.order, o.name)
	return nil
}

type sharingOwner struct{ orderedOwner }

func (sharingOwner) EndsSharing() {}

// TestTheOwnerThatEndsSharingPurgesFirst: an account's deletion purges the
// owner that ends the partnership before the others, whatever the order
// they were registered in, while the shared records still exist (the
// ex-partner's feed is told of each); an export has no section of an
// owner that exports nil.
func TestTheOwnerThatEndsSharingPurgesFirst(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	id, _ := f.verified(t, "a@x.io")
	var order []string
	f.svc.AddDataOwners(orderedOwner{"messages", &order}, sharingOwner{orderedOwner{"partners", &order}}, orderedOwner{"events", &order})
	_, data, err := f.svc.Export(ctx, id)
	if err != nil || len(data) != 0 {
		t.Fatalf("export: %v, %v", data, err)
	}
	if err := f.svc.Delete(ctx, id); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(order) != "[partners messages events]" {
		t.Fatalf("purged in the order %v", order)
	}
}
