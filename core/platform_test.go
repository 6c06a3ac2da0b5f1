package core_test

import (
	"testing"

	"tandem/core"
)

func TestParsePlatform(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in  string
		ok  bool
		msg string
	}{
		{"ios", true, ""},
		{"android", true, ""},
		{"web", true, ""},
		{"", false, "platform is required: ios, android or web"},
		{"iOS", false, "platform must be ios, android or web"},
		{"windows", false, "platform must be ios, android or web"},
		{" ios", false, "platform must be ios, android or web"},
	}
	for _, tc := range cases {
		p, err := core.ParsePlatform(tc.in)
		if tc.ok != (err == nil) || (tc.ok && string(p) != tc.in) {
			t.Errorf("%q: %q %v", tc.in, p, err)
		}
		if err != nil && (core.As(err).Code != "invalid_request" || core.As(err).Message != tc.msg) {
			t.Errorf("%q: %v", tc.in, err)
		}
	}
}
