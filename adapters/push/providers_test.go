package push_test

import (
	"regexp"
	"strings"
	"testing"

	"tandem/adapters/push"
	"tandem/adapters/push/expo"
	"tandem/core"
)

// TestProvidersKnowEveryAdapter: a device names expo or fcm, nothing else,
// with the texts of a missing and of an unknown name.
func TestProvidersKnowEveryAdapter(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{expo.Name, "fcm"} {
		if err := (push.Providers{}).CheckProvider(ok); err != nil {
			t.Fatalf("%q: %v", ok, err)
		}
	}
	for bad, want := range map[string]string{"": "provider is required: expo or fcm", "apns": "provider must be expo or fcm",
		"FCM": "provider must be expo or fcm"} {
		err := (push.Providers{}).CheckProvider(bad)
		if core.KindOf(err) != core.KindInvalid || core.As(err).Code != "invalid_request" || core.As(err).Message != want {
			t.Fatalf("%q: want 400 invalid_request %q, got %v", bad, want, err)
		}
	}
}

// TestProvidersCheckEachTokenShape: an expo token has Expo's form, an fcm
// token is any token the module takes (the module checks that first).
func TestProvidersCheckEachTokenShape(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, provider, token string
		ok                    bool
	}{
		{"expo token", "expo", "ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]", true},
		{"new expo form", "expo", "ExpoPushToken[abc]", true},
		{"fcm token", "fcm", "dQw4w9WgXcQ:APA91bH-" + strings.Repeat("x", 140), true},
		{"fcm token sent as expo", "expo", "dQw4w9WgXcQ:APA91bH", false},
		{"expo without a body", "expo", "ExponentPushToken[]", false},
		{"expo unclosed", "expo", "ExponentPushToken[abc", false},
		{"expo lower case", "expo", "exponentPushToken[abc]", false},
		{"expo token sent as fcm is just a string", "fcm", "ExponentPushToken[abc]", true},
	}
	for _, tc := range cases {
		err := (push.Providers{}).CheckToken(tc.provider, tc.token)
		if tc.ok != (err == nil) {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !tc.ok && (core.KindOf(err) != core.KindInvalid || core.As(err).Message != "an expo token looks like ExponentPushToken[...]") {
			t.Fatalf("%s: want 400 with Expo's form, got %v", tc.name, err)
		}
	}
}

// TestExpoTokenPatternIsCheckToken: the document's pattern takes exactly the
// printable tokens CheckToken takes.
func TestExpoTokenPatternIsCheckToken(t *testing.T) {
	t.Parallel()
	re := regexp.MustCompile(expo.TokenPattern)
	for _, prefix := range []string{"ExponentPushToken[", "ExpoPushToken[", "ExpoPushToken", "expoPushToken[", "ExpoPushToken]"} {
		for _, middle := range []string{"", "x", "]", "[", "a~!", strings.Repeat("x", 22)} {
			for _, end := range []string{"", "]", "]]"} {
				s := prefix + middle + end
				if re.MatchString(s) != (expo.CheckToken(s) == nil) {
					t.Errorf("%q: pattern %v, CheckToken %v", s, re.MatchString(s), expo.CheckToken(s))
				}
			}
		}
	}
}
