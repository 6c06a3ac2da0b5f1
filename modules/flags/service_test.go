package flags_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"tandem/adapters/memory"
	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/flags"
)

// fixture is a Service on the memory repository, a premium fake, a fixed
// clock (2025-06-15 12:00 UTC) and sequential ids (id-1, id-2, ...).
type fixture struct {
	svc     *flags.Service
	repo    *memory.FlagRepo
	premium *premiumUsers
	clock   *coretest.FixedClock
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{repo: memory.NewFlagRepo(), premium: &premiumUsers{m: map[string]bool{}}, clock: coretest.NewClock(time.Time{})}
	f.svc = flags.NewService(f.repo, f.premium, f.clock, &coretest.SeqIDs{})
	return f
}

// premiumUsers is the premium fake: the users in m are premium, a user in
// fail makes the store fail, and asked counts the questions per user.
type premiumUsers struct {
	mu    sync.Mutex
	m     map[string]bool
	fail  map[string]error
	asked map[string]int
}

func (p *premiumUsers) IsPremium(_ context.Context, userID string) (bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.asked == nil {
		p.asked = map[string]int{}
	}
	p.asked[userID]++
	return p.m[userID], p.fail[userID]
}

func (p *premiumUsers) askedOf(userID string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.asked[userID]
}

func (p *premiumUsers) set(userID string) { p.mu.Lock(); p.m[userID] = true; p.mu.Unlock() }

var admin = core.WithPrincipal(context.Background(), core.Principal{UserID: "boss-id", Email: "boss@x.io", Admin: true})

// as is userID signed in ("" is an anonymous caller).
func as(userID string) context.Context {
	if userID == "" {
		return context.Background()
	}
	return core.WithPrincipal(context.Background(), core.Principal{UserID: userID, Email: userID + "@x.io"})
}

func (f *fixture) create(t *testing.T, d flags.Draft) flags.Flag {
	t.Helper()
	fl, err := f.svc.Create(admin, d)
	if err != nil {
		t.Fatal(err)
	}
	return fl
}

func pct(x float64) *float64 { return &x }

func TestCreateRules(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		ctx   context.Context
		draft flags.Draft
		want  flags.Flag // ID, times and key are checked apart
		msg   string     // the 400's message; "" when accepted
	}{
		{name: "defaults: off, rollout 100, every platform, creator from the token", ctx: admin,
			draft: flags.Draft{Key: "dark_mode", Name: " Dark mode "},
			want: flags.Flag{Name: "Dark mode", RolloutPercentage: 100, Platforms: []flags.Platform{},
				EnabledForUserIDs: []string{}, DisabledForUserIDs: []string{}, CreatedBy: "boss@x.io"}},
		{name: "every field as sent", ctx: admin,
			draft: flags.Draft{Key: "checkout.v2", Name: "Checkout", Description: " New checkout ", IsEnabled: true,
				EnabledForPremium: true, RolloutPercentage: pct(25), Platforms: []string{"android", "ios", "android"},
				EnabledForUserIDs: []string{"u2", " u1 "}, DisabledForUserIDs: []string{"u3"}, CreatedBy: " Release team "},
			want: flags.Flag{Name: "Checkout", Description: "New checkout", IsEnabled: true, EnabledForPremium: true,
				RolloutPercentage: 25, Platforms: []flags.Platform{core.PlatformAndroid, core.PlatformIOS},
				EnabledForUserIDs: []string{"u1", "u2"}, DisabledForUserIDs: []string{"u3"}, CreatedBy: "Release team"}},
		{name: "rollout 0 is kept", ctx: admin, draft: flags.Draft{Key: "k", Name: "K", RolloutPercentage: pct(0)},
			want: flags.Flag{Name: "K", Platforms: []flags.Platform{}, EnabledForUserIDs: []string{}, DisabledForUserIDs: []string{},
				CreatedBy: "boss@x.io"}},
		{name: "no principal, no createdBy: empty creator", ctx: context.Background(), draft: flags.Draft{Key: "k", Name: "K"},
			want: flags.Flag{Name: "K", RolloutPercentage: 100, Platforms: []flags.Platform{}, EnabledForUserIDs: []string{},
				DisabledForUserIDs: []string{}}},
		{name: "missing key", ctx: admin, draft: flags.Draft{Name: "K"}, msg: "key is required"},
		{name: "bad key", ctx: admin, draft: flags.Draft{Key: "Dark Mode", Name: "K"}, msg: "key must be 1 to 64 characters of a-z, 0-9, _, . and -, starting with a-z or 0-9"},
		{name: "missing name", ctx: admin, draft: flags.Draft{Key: "k", Name: "  "}, msg: "name is required"},
		{name: "fractional rollout", ctx: admin, draft: flags.Draft{Key: "k", Name: "K", RolloutPercentage: pct(12.5)},
			msg: "rolloutPercentage must be a whole number from 0 to 100"},
		{name: "rollout over 100", ctx: admin, draft: flags.Draft{Key: "k", Name: "K", RolloutPercentage: pct(101)},
			msg: "rolloutPercentage must be a whole number from 0 to 100"},
		{name: "negative rollout", ctx: admin, draft: flags.Draft{Key: "k", Name: "K", RolloutPercentage: pct(-1)},
			msg: "rolloutPercentage must be a whole number from 0 to 100"},
		{name: "unknown platform", ctx: admin, draft: flags.Draft{Key: "k", Name: "K", Platforms: []string{"ios", "tv"}},
			msg: "platforms may hold only ios, android and web"},
		{name: "a user in both lists", ctx: admin, draft: flags.Draft{Key: "k", Name: "K", EnabledForUserIDs: []string{"u1"},
			DisabledForUserIDs: []string{" u1"}}, msg: `user "u1" is in both enabledForUserIds and disabledForUserIds`},
		{name: "an empty user id", ctx: admin, draft: flags.Draft{Key: "k", Name: "K", EnabledForUserIDs: []string{""}},
			msg: "enabledForUserIds must hold user ids of 1 to 64 characters"},
		{name: "createdBy too long", ctx: admin, draft: flags.Draft{Key: "k", Name: "K", CreatedBy: strings.Repeat("c", 256)},
			msg: "createdBy must be at most 255 characters"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			got, err := f.svc.Create(tc.ctx, tc.draft)
			if tc.msg != "" {
				coretest.WantErrMessage(t, err, core.KindInvalid, "invalid_request", tc.msg)
				if all, _, _ := f.repo.List(context.Background(), core.Page{}); len(all) != 0 {
					t.Fatalf("written: %+v", all)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			stored, err := f.repo.Get(context.Background(), tc.draft.Key)
			if err != nil {
				t.Fatal(err)
			}
			now, w := f.clock.Now(), tc.want
			for _, x := range []flags.Flag{got, stored} {
				if x.ID != "id-1" || x.Key != tc.draft.Key || x.Name != w.Name || x.Description != w.Description ||
					x.IsEnabled != w.IsEnabled || x.EnabledForPremium != w.EnabledForPremium ||
					x.RolloutPercentage != w.RolloutPercentage || !slices.Equal(x.Platforms, w.Platforms) ||
					!slices.Equal(x.EnabledForUserIDs, w.EnabledForUserIDs) || !slices.Equal(x.DisabledForUserIDs, w.DisabledForUserIDs) ||
					x.CreatedBy != w.CreatedBy || !x.CreatedAt.Equal(now) || !x.UpdatedAt.Equal(now) {
					t.Fatalf("got  %+v\nwant %+v", x, w)
				}
			}
		})
	}
}

func TestCreateConflicts(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.create(t, flags.Draft{Key: "k", Name: "First", IsEnabled: true})
	_, err := f.svc.Create(admin, flags.Draft{Key: "k", Name: "Second"})
	coretest.WantErrMessage(t, err, core.KindConflict, "conflict", "a feature flag with this key already exists")
	if got, _ := f.repo.Get(context.Background(), "k"); got.Name != "First" || !got.IsEnabled {
		t.Fatalf("replaced: %+v", got)
	}

	for i := 1; i < flags.MaxFlags; i++ {
		f.create(t, flags.Draft{Key: fmt.Sprint("flag-", i), Name: "N"})
	}
	_, err = f.svc.Create(admin, flags.Draft{Key: "one-too-many", Name: "N"})
	coretest.WantErrMessage(t, err, core.KindConflict, "conflict", "there are already 1000 feature flags: delete one first")
	if err := f.svc.Delete(admin, "flag-1"); err != nil {
		t.Fatal(err)
	}
	f.create(t, flags.Draft{Key: "one-too-many", Name: "N"})
}

func TestToggleUpdateDelete(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	created := f.create(t, flags.Draft{Key: "k", Name: "K", Description: "d", RolloutPercentage: pct(10),
		Platforms: []string{"ios"}, EnabledForUserIDs: []string{"a"}, CreatedBy: "me"})
	on, off := true, false

	f.clock.Advance(time.Minute)
	got, err := f.svc.Toggle(admin, "k", &on)
	if err != nil || !got.IsEnabled || !got.UpdatedAt.Equal(f.clock.Now()) || got.RolloutPercentage != 10 {
		t.Fatalf("toggle on: %+v %v", got, err)
	}
	if got, _ = f.svc.Toggle(admin, "k", &off); got.IsEnabled {
		t.Fatalf("toggle off: %+v", got)
	}
	_, err = f.svc.Toggle(admin, "k", nil)
	coretest.WantErrMessage(t, err, core.KindInvalid, "invalid_request", "isEnabled is required: true or false")
	_, err = f.svc.Toggle(admin, "", &on)
	coretest.WantErrMessage(t, err, core.KindInvalid, "invalid_request", "flagKey is required")
	_, err = f.svc.Toggle(admin, "ghost", &on)
	coretest.WantErrMessage(t, err, core.KindNotFound, "not_found", "feature flag not found")

	f.clock.Advance(time.Minute)
	name, desc := " Renamed ", ""
	got, err = f.svc.Update(admin, "k", flags.Patch{Name: &name, Description: &desc, IsEnabled: &on, RolloutPercentage: pct(50),
		Platforms: &[]string{}, EnabledForUserIDs: &[]string{}, DisabledForUserIDs: &[]string{"a", "b"}})
	if err != nil {
		t.Fatal(err)
	}
	stored, _ := f.repo.Get(ctx, "k")
	for _, x := range []flags.Flag{got, stored} {
		if x.Name != "Renamed" || x.Description != "" || !x.IsEnabled || x.RolloutPercentage != 50 || len(x.Platforms) != 0 ||
			len(x.EnabledForUserIDs) != 0 || !slices.Equal(x.DisabledForUserIDs, []string{"a", "b"}) ||
			x.ID != created.ID || x.CreatedBy != "me" || !x.CreatedAt.Equal(created.CreatedAt) || !x.UpdatedAt.Equal(f.clock.Now()) {
			t.Fatalf("updated %+v", x)
		}
	}

	// a refused update writes nothing, whatever else it held
	bad := []struct {
		p   flags.Patch
		msg string
	}{
		{flags.Patch{}, "send at least one of name, description, isEnabled, enabledForPremium, rolloutPercentage, platforms, enabledForUserIds, disabledForUserIds"},
		{flags.Patch{IsEnabled: &off, RolloutPercentage: pct(100.5)}, "rolloutPercentage must be a whole number from 0 to 100"},
		{flags.Patch{IsEnabled: &off, EnabledForUserIDs: &[]string{"b"}}, `user "b" is in both enabledForUserIds and disabledForUserIds`},
		{flags.Patch{IsEnabled: &off, Name: new(string)}, "name is required"},
		{flags.Patch{IsEnabled: &off, Platforms: &[]string{"tv"}}, "platforms may hold only ios, android and web"},
	}
	for _, b := range bad {
		_, err := f.svc.Update(admin, "k", b.p)
		coretest.WantErrMessage(t, err, core.KindInvalid, "invalid_request", b.msg)
	}
	if again, _ := f.repo.Get(ctx, "k"); !again.IsEnabled || again.RolloutPercentage != 50 || again.Name != "Renamed" {
		t.Fatalf("a refused update wrote: %+v", again)
	}
	_, err = f.svc.Update(admin, "ghost", flags.Patch{IsEnabled: &on})
	coretest.WantErrMessage(t, err, core.KindNotFound, "not_found", "feature flag not found")
	_, err = f.svc.Update(admin, "Bad Key", flags.Patch{IsEnabled: &on})
	coretest.WantErrMessage(t, err, core.KindInvalid, "invalid_request", "key must be 1 to 64 characters of a-z, 0-9, _, . and -, starting with a-z or 0-9")

	if err := f.svc.Delete(admin, "k"); err != nil {
		t.Fatal(err)
	}
	coretest.WantErrMessage(t, f.svc.Delete(admin, "k"), core.KindNotFound, "not_found", "feature flag not found")
	coretest.WantErrMessage(t, f.svc.Delete(admin, ""), core.KindInvalid, "invalid_request", "flagKey is required")
	d, err := f.svc.Evaluate(as("b"), "k", "", "ios")
	if err != nil || d.Enabled || d.Reason != flags.ReasonUnknown || d.Flag != nil || d.Key != "k" {
		t.Fatalf("deleted flag: %+v %v", d, err)
	}
}

func TestEvaluateThroughTheService(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.create(t, flags.Draft{Key: "premium_only", Name: "P", Description: "for premium", IsEnabled: true, EnabledForPremium: true,
		EnabledForUserIDs: []string{"friend"}, DisabledForUserIDs: []string{"foe"}, Platforms: []string{"ios", "android"}})
	f.premium.set("payer")
	cases := []struct {
		user, platform string
		on             bool
		why            flags.Reason
	}{
		{"payer", "ios", true, flags.ReasonRolledOut},
		{"payer", "web", false, flags.ReasonPlatform},
		{"free", "ios", false, flags.ReasonPremium},
		{"friend", "web", true, flags.ReasonAllowed},
		{"foe", "ios", false, flags.ReasonDenied},
		{"no-such-account", "android", false, flags.ReasonPremium},
		{"", "ios", false, flags.ReasonPremium},
	}
	for _, tc := range cases {
		d, err := f.svc.Evaluate(as(tc.user), "premium_only", "", tc.platform)
		if err != nil || d.Enabled != tc.on || d.Reason != tc.why || d.Key != "premium_only" || d.Flag == nil ||
			d.Flag.Name != "P" || d.Flag.Description != "for premium" {
			t.Fatalf("%s on %s: %+v %v", tc.user, tc.platform, d, err)
		}
	}
	d, err := f.svc.Evaluate(as("payer"), "nope", "payer", "ios")
	if err != nil || d.Enabled || d.Reason != flags.ReasonUnknown || d.Flag != nil || d.Key != "nope" {
		t.Fatalf("unknown: %+v %v", d, err)
	}
	bad := []struct{ key, user, platform, msg string }{
		{"", "u", "ios", "flag is required: the key of a feature flag"},
		{"premium_only", "u", "tv", "platform must be ios, android or web"},
		{"premium_only", strings.Repeat("u", 65), "ios", "userId must be at most 64 characters"},
	}
	for _, b := range bad {
		_, err := f.svc.Evaluate(as("u"), b.key, b.user, b.platform)
		coretest.WantErrMessage(t, err, core.KindInvalid, "invalid_request", b.msg)
	}
	// a key no flag can have is unknown, so off: the app asks, it is not wrong
	d, err = f.svc.Evaluate(as("u"), "Dark Mode", "u", "ios")
	if err != nil || d.Enabled || d.Reason != flags.ReasonUnknown || d.Flag != nil {
		t.Fatalf("got %+v %v, want unknown and off", d, err)
	}
}

// TestAnswersAreForTheCallerOnly: an answer tells whether a user is premium
// and where they are listed, so it is the caller's own; only an
// administrator may ask for another user, and an anonymous caller is nobody.
func TestAnswersAreForTheCallerOnly(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.create(t, flags.Draft{Key: "premium_only", Name: "P", IsEnabled: true, EnabledForPremium: true})
	f.create(t, flags.Draft{Key: "for_vip", Name: "V", IsEnabled: true, RolloutPercentage: pct(0), EnabledForUserIDs: []string{"vip"}})
	f.premium.set("payer")
	cases := []struct {
		name   string
		ctx    context.Context
		userID string
		want   string // the evaluated user; "403" refused
		keys   []string
	}{
		{"own answer, userId left out", as("payer"), "", "payer", []string{"premium_only"}},
		{"own answer, userId named", as("vip"), "vip", "vip", []string{"for_vip"}},
		{"another user's answer", as("free"), "payer", "403", nil},
		{"another user's listing", as("free"), "vip", "403", nil},
		{"an administrator names anyone", admin, "payer", "payer", []string{"premium_only"}},
		{"an administrator's own", admin, "", "boss-id", []string{}},
		{"anonymous: no user, whoever is named", as(""), "payer", "", []string{}},
		{"anonymous: not even the listed", as(""), "vip", "", []string{}},
		{"anonymous without userId", as(""), "", "", []string{}},
	}
	for _, tc := range cases {
		got, err := f.svc.Enabled(tc.ctx, tc.userID, "ios")
		d, derr := f.svc.Evaluate(tc.ctx, "premium_only", tc.userID, "ios")
		if tc.want == "403" {
			coretest.WantErrMessage(t, err, core.KindForbidden, "forbidden", "you may only evaluate feature flags for yourself")
			coretest.WantErrMessage(t, derr, core.KindForbidden, "forbidden", "you may only evaluate feature flags for yourself")
			continue
		}
		if err != nil || derr != nil || got.Subject.UserID != tc.want || !slices.Equal(got.Keys, tc.keys) ||
			d.Enabled != slices.Contains(tc.keys, "premium_only") {
			t.Fatalf("%s: %+v %v / %+v %v", tc.name, got, err, d, derr)
		}
	}
}

func TestEnabledListsTheFlagsThatAreOn(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.create(t, flags.Draft{Key: "everyone", Name: "E", IsEnabled: true})
	f.create(t, flags.Draft{Key: "switched_off", Name: "S"})
	f.create(t, flags.Draft{Key: "ios_only", Name: "I", IsEnabled: true, Platforms: []string{"ios"}})
	f.create(t, flags.Draft{Key: "premium_a", Name: "A", IsEnabled: true, EnabledForPremium: true})
	f.create(t, flags.Draft{Key: "premium_b", Name: "B", IsEnabled: true, EnabledForPremium: true, DisabledForUserIDs: []string{"payer"}})
	f.create(t, flags.Draft{Key: "nobody", Name: "N", IsEnabled: true, RolloutPercentage: pct(0), EnabledForUserIDs: []string{"friend"}})
	f.premium.set("payer")
	cases := []struct {
		user, platform string
		want           []string
	}{
		{"payer", "ios", []string{"everyone", "ios_only", "premium_a"}},
		{"payer", "android", []string{"everyone", "premium_a"}},
		{"friend", "", []string{"everyone", "nobody"}},
		{"", "ios", []string{"everyone", "ios_only"}},
	}
	for _, tc := range cases {
		got, err := f.svc.Enabled(as(tc.user), "", tc.platform)
		if err != nil || !slices.Equal(got.Keys, tc.want) || got.Subject.UserID != tc.user {
			t.Fatalf("%q on %q: %v %v", tc.user, tc.platform, got, err)
		}
	}
	if got, err := newFixture(t).svc.Enabled(as("u"), "", "web"); err != nil || got.Keys == nil || len(got.Keys) != 0 {
		t.Fatalf("no flags: %v %v", got, err)
	}
	_, err := f.svc.Enabled(as("u"), "", "tv")
	coretest.WantErrMessage(t, err, core.KindInvalid, "invalid_request", "platform must be ios, android or web")
}

// TestPremiumIsAskedOnlyWhenNeeded: the list asks once however many flags
// need it, and never when none does.
func TestPremiumIsAskedOnlyWhenNeeded(t *testing.T) {
	t.Parallel()
	repo := memory.NewFlagRepo()
	premium := &premiumUsers{m: map[string]bool{"u1": true}, fail: map[string]error{"u2": errors.New("down")}}
	svc := flags.NewService(repo, premium, coretest.NewClock(time.Time{}), &coretest.SeqIDs{})
	for _, d := range []flags.Draft{
		{Key: "a", Name: "A", IsEnabled: true, EnabledForPremium: true},
		{Key: "b", Name: "B", IsEnabled: true, EnabledForPremium: true},
		{Key: "c", Name: "C", IsEnabled: true},
	} {
		if _, err := svc.Create(admin, d); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := svc.Enabled(as("u1"), "", ""); err != nil || !slices.Equal(got.Keys, []string{"a", "b", "c"}) ||
		premium.askedOf("u1") != 1 {
		t.Fatalf("%v %v, asked %d times", got, err, premium.askedOf("u1"))
	}
	// a flag that needs no premium does not ask
	if d, err := svc.Evaluate(as("u1"), "c", "", ""); err != nil || !d.Enabled || premium.askedOf("u1") != 1 {
		t.Fatalf("%+v %v, asked %d times", d, err, premium.askedOf("u1"))
	}
	// a failing premium store fails the read rather than guessing
	if _, err := svc.Evaluate(as("u2"), "a", "", ""); err == nil || premium.askedOf("u2") != 1 {
		t.Fatal("premium failure swallowed")
	}
}

func TestListPagesForAdministrators(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	for _, k := range []string{"c", "a", "b"} {
		f.create(t, flags.Draft{Key: k, Name: k})
	}
	all, next, err := f.svc.List(ctx, core.Page{})
	if err != nil || next != "" || len(all) != 3 || all[0].Key != "a" || all[2].Key != "c" {
		t.Fatalf("%+v %q %v", all, next, err)
	}
	first, next, err := f.svc.List(ctx, core.Page{Limit: 2})
	if err != nil || len(first) != 2 || next == "" {
		t.Fatalf("%+v %q %v", first, next, err)
	}
	rest, last, err := f.svc.List(ctx, core.Page{Limit: 2, Cursor: next})
	if err != nil || len(rest) != 1 || rest[0].Key != "c" || last != "" {
		t.Fatalf("%+v %q %v", rest, last, err)
	}
	_, _, err = f.svc.List(ctx, core.Page{Limit: 2, Cursor: "garbage!"})
	coretest.WantErrMessage(t, err, core.KindInvalid, "invalid_request", "cursor is not one this server handed out")
	empty, _, err := newFixture(t).svc.List(ctx, core.Page{})
	if err != nil || empty == nil || len(empty) != 0 {
		t.Fatalf("empty: %v %v", empty, err)
	}
}

func TestExportAndPurgeAUsersListings(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	f.create(t, flags.Draft{Key: "b", Name: "B", EnabledForUserIDs: []string{"u1", "u2"}})
	f.create(t, flags.Draft{Key: "a", Name: "A", EnabledForUserIDs: []string{"u1"}})
	f.create(t, flags.Draft{Key: "c", Name: "C", DisabledForUserIDs: []string{"u1"}})
	f.create(t, flags.Draft{Key: "d", Name: "D"})
	if f.svc.Section() != "featureFlags" {
		t.Fatal(f.svc.Section())
	}
	got, err := f.svc.ExportUser(ctx, "u1")
	if err != nil {
		t.Fatal(err)
	}
	if e := got.(flags.ExportedListings); !slices.Equal(e.EnabledFor, []string{"a", "b"}) || !slices.Equal(e.DisabledFor, []string{"c"}) {
		t.Fatalf("export %+v", e)
	}
	if err := f.svc.PurgeUser(ctx, "u1"); err != nil {
		t.Fatal(err)
	}
	got, _ = f.svc.ExportUser(ctx, "u1")
	if e := got.(flags.ExportedListings); e.EnabledFor == nil || e.DisabledFor == nil || len(e.EnabledFor)+len(e.DisabledFor) != 0 {
		t.Fatalf("after purge %+v", e)
	}
	if b, _ := f.repo.Get(ctx, "b"); !slices.Equal(b.EnabledForUserIDs, []string{"u2"}) {
		t.Fatalf("another user's listing went: %+v", b)
	}
	if err := f.svc.PurgeUser(ctx, "u1"); err != nil { // idempotent
		t.Fatal(err)
	}
}
