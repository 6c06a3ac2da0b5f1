package flags_test

import (
	"slices"
	"testing"

	"tandem/core"
	"tandem/modules/flags"
)

// FuzzParseCursor: a flags list cursor parses only in the form Cursor.String
// makes and holds a valid flag key, so a parsed cursor re-encodes to the
// same string and the cursor after any valid key parses back to it.
func FuzzParseCursor(f *testing.F) {
	f.Add(flags.Cursor{Key: "new_onboarding"}.String(), "dark-mode.v2")
	f.Add(core.EncodeCursor("Bad Key"), "")
	f.Add(core.EncodeCursor("a", "b"), "x")
	f.Fuzz(func(t *testing.T, s, key string) {
		c, err := flags.ParseCursor(s)
		if err == nil {
			if c.String() != s || flags.ValidateKey(c.Key) != nil {
				t.Fatalf("ParseCursor(%q) = %+v, which encodes as %q", s, c, c.String())
			}
		} else if e := core.As(err); e.Kind != core.KindInvalid || e.Code != "invalid_request" {
			t.Fatalf("ParseCursor(%q): %v, want 400 invalid_request", s, err)
		}
		if flags.ValidateKey(key) != nil {
			return
		}
		in := flags.Cursor{Key: key}
		if back, err := flags.ParseCursor(in.String()); err != nil || back != in {
			t.Fatalf("%+v encodes as %q, which parses as %+v, %v", in, in.String(), back, err)
		}
	})
}

// FuzzEvaluate: the feature flag rules, in the documented order, hold for
// any flag and subject: disabled is off; a listed-disabled user is off and a
// listed-enabled one on; outside the flag's platforms off; premium-only and
// not premium off (premium is asked only then); else on exactly when the
// user's bucket (0 to 99, the same on every call) is below the rollout, so
// raising the rollout never drops anyone, and an anonymous caller is in the
// rollout only at 100.
func FuzzEvaluate(f *testing.F) {
	f.Add("new_onboarding", "user-1", "ios", true, false, uint8(0), 50, uint8(0), false)
	f.Add("dark-mode", "", "web", true, true, uint8(1), 100, uint8(1), true)
	f.Add("x", "u", "", true, false, uint8(2), 0, uint8(2), false)
	f.Add("beta.v2", "u2", "android", false, false, uint8(0), 100, uint8(3), true)
	f.Fuzz(func(t *testing.T, key, userID, platform string, enabled, premiumOnly bool, listing uint8, rollout int, platforms uint8, premium bool) {
		all := []flags.Platform{core.PlatformIOS, core.PlatformAndroid, core.PlatformWeb}
		var ps []flags.Platform
		for i, p := range all {
			if platforms&(1<<i) != 0 {
				ps = append(ps, p)
			}
		}
		rollout = ((rollout % 101) + 101) % 101
		r := flags.Rule{Flag: flags.Flag{Key: key, IsEnabled: enabled, EnabledForPremium: premiumOnly, RolloutPercentage: rollout,
			Platforms: ps}, Listing: flags.Listing(listing % 3)}
		sub := flags.Subject{UserID: userID, Platform: flags.Platform(platform)}
		asked := false
		isPremium := func() (bool, error) { asked = true; return premium, nil }
		on, why, err := flags.Evaluate(&r, sub, isPremium)
		if err != nil {
			t.Fatal(err)
		}
		listed := userID != "" && r.Listing != flags.Unlisted
		onPlatform := len(ps) == 0 || slices.Contains(ps, sub.Platform)
		bucket := flags.Bucket(key, userID)
		if bucket < 0 || bucket > 99 || bucket != flags.Bucket(key, userID) {
			t.Fatalf("Bucket(%q, %q) = %d", key, userID, bucket)
		}
		var want bool
		switch {
		case !enabled:
			want = false
		case userID != "" && r.Listing == flags.ListedDisabled:
			want = false
		case userID != "" && r.Listing == flags.ListedEnabled:
			want = true
		case !onPlatform:
			want = false
		case premiumOnly && (userID == "" || !premium):
			want = false
		default:
			want = rollout >= 100 || (userID != "" && bucket < rollout)
		}
		if on != want {
			t.Fatalf("Evaluate(%+v, %+v) = %v (%s), want %v", r, sub, on, why, want)
		}
		if asked && (!enabled || listed || !onPlatform || !premiumOnly || userID == "") {
			t.Fatalf("premium asked needlessly for %+v, %+v", r, sub)
		}
		if on && rollout < 100 {
			r.Flag.RolloutPercentage = rollout + 1
			if more, _, _ := flags.Evaluate(&r, sub, isPremium); !more {
				t.Fatalf("raising the rollout from %d dropped %+v", rollout, sub)
			}
		}
		if off, why, _ := flags.Evaluate(nil, sub, isPremium); off || why != flags.ReasonUnknown {
			t.Fatalf("an unknown flag is %v (%s)", off, why)
		}
	})
}
