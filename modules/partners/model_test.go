package partners_test

import (
	"strings"
	"testing"

	"tandem/core"
	"tandem/modules/partners"
)

func TestValidateConnectionCode(t *testing.T) {
	t.Parallel()
	cases := []struct {
		code string
		ok   bool
	}{
		{"abcdefgh", true},
		{"Ab_9-z-Q", true},
		{strings.Repeat("x", 64), true},
		{"abcdefg", false}, // the earlier 4-character rule is gone for new codes
		{"abcd", false},
		{"abc", false},
		{strings.Repeat("x", 65), false},
		{"", false},
		{"ab cd", false},
		{"abc/", false},
		{"héllo", false},
		{"abc.d", false},
		{"abcdefgh\n", false},
	}
	for _, tc := range cases {
		err := partners.ValidateConnectionCode(tc.code)
		if tc.ok != (err == nil) {
			t.Errorf("%q: err %v", tc.code, err)
		}
		if err != nil && (!core.IsKind(err, core.KindInvalid) || core.As(err).Code != "invalid_request" ||
			!strings.Contains(err.Error(), "8 to 64 characters")) {
			t.Errorf("%q: %v", tc.code, err)
		}
	}
}

func TestConnectionKeyIgnoresCase(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ a, b string }{{"Our-Code_1", "our-code_1"}, {"ABCDEFGH", "abcdefgh"}, {"a1-_", "A1-_"}} {
		if partners.ConnectionKey(tc.a) != partners.ConnectionKey(tc.b) {
			t.Errorf("%q and %q differ", tc.a, tc.b)
		}
	}
	if partners.ConnectionKey("abcdefgh") == partners.ConnectionKey("abcdefgi") {
		t.Error("different codes share a key")
	}
}

func TestNormalizePairingCode(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in, want string
		ok       bool
	}{
		{"ABC234", "ABC234", true},
		{" abc234\t", "ABC234", true},
		{"ZZZZ99", "ZZZZ99", true},
		{"ABC23", "", false},
		{"ABC2345", "", false},
		{"ABCDE0", "", false}, // 0, O, 1 and I are not in the alphabet
		{"ABCDEO", "", false},
		{"ABCDE1", "", false},
		{"ABCDEI", "", false},
		{"ABC-23", "", false},
		{"", "", false},
	}
	for _, tc := range cases {
		got, ok := partners.NormalizePairingCode(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%q: got %q %v, want %q %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestNewPairingCodeDrawsFromTheAlphabet(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	used := map[rune]bool{}
	for range 2000 {
		c := partners.NewPairingCode()
		if n, ok := partners.NormalizePairingCode(c); !ok || n != c {
			t.Fatalf("drew %q", c)
		}
		seen[c] = true
		for _, r := range c {
			used[r] = true
		}
	}
	if len(seen) < 1990 || len(used) != len(partners.PairingCodeAlphabet) {
		t.Fatalf("%d distinct codes, %d distinct characters", len(seen), len(used))
	}
}

func TestPartnershipPartnerOf(t *testing.T) {
	t.Parallel()
	p := partners.Partnership{ID: "p", UserA: "a", UserB: "b"}
	if p.PartnerOf("a") != "b" || p.PartnerOf("b") != "a" || p.PartnerOf("c") != "" || p.Users() != [2]string{"a", "b"} {
		t.Fatalf("%+v", p)
	}
}
