package flags_test

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"tandem/core"
	"tandem/modules/flags"
)

func TestValidateKey(t *testing.T) {
	t.Parallel()
	cases := []struct {
		key string
		ok  bool
	}{
		{"dark_mode", true},
		{"checkout.v2-beta", true},
		{"a", true},
		{"0", true},
		{strings.Repeat("k", 64), true},
		{"", false},
		{strings.Repeat("k", 65), false},
		{"Dark_mode", false},
		{"dark mode", false},
		{"dark/mode", false},
		{"dark:mode", false},
		{"dárk", false},
		{"dark\n", false},
		// The first character is a letter or a digit: "." and ".." would be
		// path segments of the console's /admin/flags/{key}.
		{".", false},
		{"..", false},
		{".hidden", false},
		{"-beta", false},
		{"_beta", false},
		{"9lives", true},
	}
	for _, tc := range cases {
		err := flags.ValidateKey(tc.key)
		if tc.ok != (err == nil) {
			t.Errorf("%q: %v", tc.key, err)
		}
		if err != nil && (core.As(err).Code != "invalid_request" ||
			core.As(err).Message != "key must be 1 to 64 characters of a-z, 0-9, _, . and -, starting with a-z or 0-9") {
			t.Errorf("%q: %v", tc.key, err)
		}
	}
}

func TestParseRollout(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   float64
		want int
		ok   bool
	}{
		{0, 0, true}, {1, 1, true}, {50, 50, true}, {100, 100, true},
		{-1, 0, false}, {101, 0, false}, {12.5, 0, false}, {99.999, 0, false},
		{math.NaN(), 0, false}, {math.Inf(1), 0, false},
	}
	for _, tc := range cases {
		got, err := flags.ParseRollout(tc.in)
		if tc.ok != (err == nil) || got != tc.want {
			t.Errorf("%v: %d %v", tc.in, got, err)
		}
		if err != nil && core.As(err).Message != "rolloutPercentage must be a whole number from 0 to 100" {
			t.Errorf("%v: %v", tc.in, err)
		}
	}
}

func TestNormalizeLists(t *testing.T) {
	t.Parallel()
	ids, err := flags.NormalizeUserIDs("enabledForUserIds", []string{" u2 ", "u1", "u2", "U1"})
	if err != nil || !slices.Equal(ids, []string{"U1", "u1", "u2"}) {
		t.Fatalf("%q %v", ids, err)
	}
	if ids, err := flags.NormalizeUserIDs("x", nil); err != nil || ids == nil || len(ids) != 0 {
		t.Fatalf("nil list: %v %v", ids, err)
	}
	for _, bad := range [][]string{{""}, {"  "}, {strings.Repeat("u", 65)}, make([]string, 1001)} {
		_, err := flags.NormalizeUserIDs("disabledForUserIds", bad)
		if !core.IsKind(err, core.KindInvalid) || !strings.HasPrefix(core.As(err).Message, "disabledForUserIds ") {
			t.Errorf("%d ids: %v", len(bad), err)
		}
	}
	many := make([]string, 1000)
	for i := range many {
		many[i] = fmt.Sprint("u", i)
	}
	if _, err := flags.NormalizeUserIDs("x", many); err != nil {
		t.Fatalf("1000 ids: %v", err)
	}

	ps, err := flags.NormalizePlatforms([]string{"web", "ios", "web"})
	if err != nil || !slices.Equal(ps, []flags.Platform{core.PlatformWeb, core.PlatformIOS}) {
		t.Fatalf("%v %v", ps, err)
	}
	if ps, err := flags.NormalizePlatforms(nil); err != nil || ps == nil || len(ps) != 0 {
		t.Fatalf("nil platforms: %v %v", ps, err)
	}
	for _, bad := range [][]string{{"palm"}, {"IOS"}, {""}} {
		if _, err := flags.NormalizePlatforms(bad); !core.IsKind(err, core.KindInvalid) ||
			core.As(err).Message != "platforms may hold only ios, android and web" {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestFlagValidate(t *testing.T) {
	t.Parallel()
	valid := func() flags.Flag {
		return flags.Flag{Key: "k", Name: "N", RolloutPercentage: 10, Platforms: []flags.Platform{core.PlatformIOS},
			EnabledForUserIDs: []string{"a"}, DisabledForUserIDs: []string{"b"}}
	}
	cases := []struct {
		name   string
		change func(f *flags.Flag)
		msg    string
	}{
		{"valid", func(*flags.Flag) {}, ""},
		{"no name", func(f *flags.Flag) { f.Name = "" }, "name is required"},
		{"long name", func(f *flags.Flag) { f.Name = strings.Repeat("n", 101) }, "name must be at most 100 characters"},
		{"long description", func(f *flags.Flag) { f.Description = strings.Repeat("d", 1001) }, "description must be at most 1000 characters"},
		{"long createdBy", func(f *flags.Flag) { f.CreatedBy = strings.Repeat("c", 256) }, "createdBy must be at most 255 characters"},
		{"rollout 101", func(f *flags.Flag) { f.RolloutPercentage = 101 }, "rolloutPercentage must be a whole number from 0 to 100"},
		{"bad platform", func(f *flags.Flag) { f.Platforms = []flags.Platform{"tv"} }, "platform must be ios, android or web"},
		{"bad key", func(f *flags.Flag) { f.Key = "K" }, "key must be 1 to 64 characters of a-z, 0-9, _, . and -, starting with a-z or 0-9"},
		{"in both lists", func(f *flags.Flag) { f.DisabledForUserIDs = []string{"a"} },
			`user "a" is in both enabledForUserIds and disabledForUserIds`},
	}
	for _, tc := range cases {
		f := valid()
		tc.change(&f)
		err := f.Validate()
		if (tc.msg == "") != (err == nil) || (err != nil && core.As(err).Message != tc.msg) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

// TestBucketGoldenValues pins the hash: a change would move users in and
// out of every running rollout. The values are SHA-256("key:user"), first
// 8 bytes big-endian, mod 100 (checked with sha256sum).
func TestBucketGoldenValues(t *testing.T) {
	t.Parallel()
	cases := []struct {
		key, user string
		want      int
	}{
		{"dark_mode", "user-1", 67},
		{"dark_mode", "user-2", 69},
		{"dark_mode", "User-1", 18},
		{"new_onboarding", "user-1", 13},
		{"checkout.v2", "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", 12},
		{"a", "", 26},
	}
	for _, tc := range cases {
		for range 3 { // the same answer on every call
			if got := flags.Bucket(tc.key, tc.user); got != tc.want {
				t.Errorf("Bucket(%q, %q) = %d, want %d", tc.key, tc.user, got, tc.want)
			}
		}
	}
}

func TestBucketSpreadsUsers(t *testing.T) {
	t.Parallel()
	var counts [100]int
	for i := range 20000 {
		b := flags.Bucket("spread", fmt.Sprint("user-", i))
		if b < 0 || b > 99 {
			t.Fatalf("bucket %d", b)
		}
		counts[b]++
	}
	for b, n := range counts {
		if n < 120 || n > 280 { // 200 expected; far outside means a broken hash
			t.Fatalf("bucket %d holds %d of 20000", b, n)
		}
	}
}

// TestRaisingTheRolloutNeverDropsAUser: for many users, on at p implies on
// at p+1, and at 0 nobody and at 100 everybody is in.
func TestRaisingTheRolloutNeverDropsAUser(t *testing.T) {
	t.Parallel()
	never := func() (bool, error) { return false, errors.New("premium must not be asked") }
	for i := range 1000 {
		user := fmt.Sprint("user-", i)
		prev := false
		for p := 0; p <= 100; p++ {
			r := flags.Rule{Flag: flags.Flag{Key: "gradual", IsEnabled: true, RolloutPercentage: p}}
			on, _, err := flags.Evaluate(&r, flags.Subject{UserID: user}, never)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case prev && !on:
				t.Fatalf("%s dropped when the rollout rose to %d", user, p)
			case p == 0 && on, p == 100 && !on:
				t.Fatalf("%s at %d: %v", user, p, on)
			case on != (flags.Bucket("gradual", user) < p):
				t.Fatalf("%s at %d: %v", user, p, on)
			}
			prev = on
		}
	}
}

// TestEvaluationOrder covers every step of the documented order, and that each
// step wins over the later ones.
func TestEvaluationOrder(t *testing.T) {
	t.Parallel()
	user := "user-1" // bucket 67 for key dark_mode
	ios, web := core.PlatformIOS, core.PlatformWeb
	type premium int
	const (
		notAsked premium = iota // premium must not be consulted
		isPremium
		notPremium
		failing
	)
	rule := func(change func(f *flags.Flag), l flags.Listing) *flags.Rule {
		f := flags.Flag{Key: "dark_mode", IsEnabled: true, RolloutPercentage: 100, Platforms: []flags.Platform{}}
		change(&f)
		return &flags.Rule{Flag: f, Listing: l}
	}
	same := func(*flags.Flag) {}
	cases := []struct {
		name    string
		rule    *flags.Rule
		sub     flags.Subject
		premium premium
		on      bool
		why     flags.Reason
		err     bool
	}{
		{"unknown flag: off", nil, flags.Subject{UserID: user}, notAsked, false, flags.ReasonUnknown, false},
		{"disabled: off", rule(func(f *flags.Flag) { f.IsEnabled = false }, flags.Unlisted), flags.Subject{UserID: user}, notAsked, false, flags.ReasonDisabled, false},
		{"disabled beats the allow list", rule(func(f *flags.Flag) { f.IsEnabled = false }, flags.ListedEnabled), flags.Subject{UserID: user}, notAsked, false, flags.ReasonDisabled, false},
		{"deny list: off", rule(same, flags.ListedDisabled), flags.Subject{UserID: user, Platform: ios}, notAsked, false, flags.ReasonDenied, false},
		{"deny list beats premium and rollout", rule(func(f *flags.Flag) { f.EnabledForPremium = true }, flags.ListedDisabled), flags.Subject{UserID: user}, notAsked, false, flags.ReasonDenied, false},
		{"allow list: on", rule(same, flags.ListedEnabled), flags.Subject{UserID: user}, notAsked, true, flags.ReasonAllowed, false},
		{"allow list beats platform, premium and rollout 0", rule(func(f *flags.Flag) {
			f.Platforms, f.EnabledForPremium, f.RolloutPercentage = []flags.Platform{ios}, true, 0
		}, flags.ListedEnabled), flags.Subject{UserID: user, Platform: web}, notAsked, true, flags.ReasonAllowed, false},
		{"other platform: off", rule(func(f *flags.Flag) { f.Platforms = []flags.Platform{ios} }, flags.Unlisted), flags.Subject{UserID: user, Platform: web}, notAsked, false, flags.ReasonPlatform, false},
		{"no platform given, platforms set: off", rule(func(f *flags.Flag) { f.Platforms = []flags.Platform{ios} }, flags.Unlisted), flags.Subject{UserID: user}, notAsked, false, flags.ReasonPlatform, false},
		{"platform in the set: on", rule(func(f *flags.Flag) { f.Platforms = []flags.Platform{web, ios} }, flags.Unlisted), flags.Subject{UserID: user, Platform: ios}, notAsked, true, flags.ReasonRolledOut, false},
		{"no platforms: every platform", rule(same, flags.Unlisted), flags.Subject{UserID: user, Platform: web}, notAsked, true, flags.ReasonRolledOut, false},
		{"platform beats premium", rule(func(f *flags.Flag) { f.Platforms, f.EnabledForPremium = []flags.Platform{ios}, true }, flags.Unlisted), flags.Subject{UserID: user, Platform: web}, notAsked, false, flags.ReasonPlatform, false},
		{"premium only, not premium: off", rule(func(f *flags.Flag) { f.EnabledForPremium = true }, flags.Unlisted), flags.Subject{UserID: user}, notPremium, false, flags.ReasonPremium, false},
		{"premium only, premium: on", rule(func(f *flags.Flag) { f.EnabledForPremium = true }, flags.Unlisted), flags.Subject{UserID: user}, isPremium, true, flags.ReasonRolledOut, false},
		{"premium then rollout", rule(func(f *flags.Flag) { f.EnabledForPremium, f.RolloutPercentage = true, 67 }, flags.Unlisted), flags.Subject{UserID: user}, isPremium, false, flags.ReasonNotRolledOut, false},
		{"premium failure is an error", rule(func(f *flags.Flag) { f.EnabledForPremium = true }, flags.Unlisted), flags.Subject{UserID: user}, failing, false, "", true},
		{"bucket below the percentage: on", rule(func(f *flags.Flag) { f.RolloutPercentage = 68 }, flags.Unlisted), flags.Subject{UserID: user}, notAsked, true, flags.ReasonRolledOut, false},
		{"bucket at the percentage: off", rule(func(f *flags.Flag) { f.RolloutPercentage = 67 }, flags.Unlisted), flags.Subject{UserID: user}, notAsked, false, flags.ReasonNotRolledOut, false},
		{"rollout 0: off", rule(func(f *flags.Flag) { f.RolloutPercentage = 0 }, flags.Unlisted), flags.Subject{UserID: user}, notAsked, false, flags.ReasonNotRolledOut, false},
		{"anonymous at 100: on", rule(same, flags.Unlisted), flags.Subject{}, notAsked, true, flags.ReasonRolledOut, false},
		{"anonymous below 100: off", rule(func(f *flags.Flag) { f.RolloutPercentage = 99 }, flags.Unlisted), flags.Subject{}, notAsked, false, flags.ReasonNotRolledOut, false},
		{"anonymous is not premium, without asking", rule(func(f *flags.Flag) { f.EnabledForPremium = true }, flags.Unlisted), flags.Subject{}, notAsked, false, flags.ReasonPremium, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			asked := 0
			ask := func() (bool, error) {
				asked++
				switch tc.premium {
				case isPremium:
					return true, nil
				case notPremium:
					return false, nil
				case failing:
					return false, errors.New("premium store down")
				}
				t.Fatal("premium consulted")
				return false, nil
			}
			on, why, err := flags.Evaluate(tc.rule, tc.sub, ask)
			if (err != nil) != tc.err || on != tc.on || why != tc.why {
				t.Fatalf("got %v %q %v, want %v %q", on, why, err, tc.on, tc.why)
			}
			if tc.premium != notAsked && asked != 1 {
				t.Fatalf("premium asked %d times", asked)
			}
		})
	}
}

func TestCursorRoundTrip(t *testing.T) {
	t.Parallel()
	c, err := flags.ParseCursor(flags.Cursor{Key: "a.b-c_9"}.String())
	if err != nil || c.Key != "a.b-c_9" {
		t.Fatalf("%+v %v", c, err)
	}
	for _, bad := range []string{"", "!!", core.EncodeCursor("Bad Key"), core.EncodeCursor("a", "b")} {
		if _, err := flags.ParseCursor(bad); !core.IsKind(err, core.KindInvalid) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestPreviewCountsSampleUsers(t *testing.T) {
	t.Parallel()
	base := flags.Flag{Key: "new_home", Name: "New home", IsEnabled: true, RolloutPercentage: 100}
	with := func(fn func(f *flags.Flag)) flags.Flag { f := base; fn(&f); return f }
	cases := []struct {
		name     string
		flag     flags.Flag
		n        int
		platform flags.Platform
		premium  bool
		lo, hi   int
	}{
		{name: "everyone at 100 percent", flag: base, n: 1000, lo: 1000, hi: 1000},
		{name: "nobody when switched off", flag: with(func(f *flags.Flag) { f.IsEnabled = false }), n: 1000},
		{name: "nobody at 0 percent", flag: with(func(f *flags.Flag) { f.RolloutPercentage = 0 }), n: 1000},
		{name: "about half at 50 percent", flag: with(func(f *flags.Flag) { f.RolloutPercentage = 50 }), n: 1000, lo: 430, hi: 570},
		{name: "premium only, sample not premium", flag: with(func(f *flags.Flag) { f.EnabledForPremium = true }), n: 100},
		{name: "premium only, sample premium", flag: with(func(f *flags.Flag) { f.EnabledForPremium = true }), n: 100, premium: true, lo: 100, hi: 100},
		{name: "another platform", flag: with(func(f *flags.Flag) { f.Platforms = []flags.Platform{core.PlatformIOS} }), n: 100,
			platform: core.PlatformAndroid},
		{name: "the sample is bounded", flag: base, n: flags.MaxPreviewSample + 5, lo: flags.MaxPreviewSample, hi: flags.MaxPreviewSample},
		{name: "a negative sample is empty", flag: base, n: -3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := flags.Preview(tc.flag, tc.n, tc.platform, tc.premium); got < tc.lo || got > tc.hi {
				t.Fatalf("got %d, want %d..%d", got, tc.lo, tc.hi)
			}
		})
	}
}

func TestPreviewNeverDropsAUserAsTheRolloutGrows(t *testing.T) {
	t.Parallel()
	prev := 0
	for pct := 0; pct <= 100; pct += 10 {
		got := flags.Preview(flags.Flag{Key: "k", Name: "K", IsEnabled: true, RolloutPercentage: pct}, 500, "", false)
		if got < prev {
			t.Fatalf("%d%%: %d after %d", pct, got, prev)
		}
		prev = got
	}
}

func TestRoomFor(t *testing.T) {
	t.Parallel()
	room := flags.RoomFor(2)
	if room.Allows(0) != nil || room.Allows(1) != nil {
		t.Fatal("room refused below the limit")
	}
	for _, held := range []int64{2, 3} {
		if err := room.Allows(held); core.KindOf(err) != core.KindConflict || core.As(err).Code != flags.CodeTooMany {
			t.Errorf("held %d: %v", held, err)
		}
	}
}
