package partners_test

import (
	"regexp"
	"strings"
	"testing"

	"tandem/core"
	"tandem/modules/partners"
)

// long64 is 64 characters that are no pattern.
const long64 = "q7Rk2mWx-9fKb_Hn3Tz4-pV8sLcJ5-yD6gMa-E2wQuN7-rX3hBv_K9tFp4-ZjS6n"

func TestValidateConnectionCode(t *testing.T) {
	t.Parallel()
	cases := []struct {
		code string
		ok   bool
	}{
		{"q7Rk2mWx", true},
		{"Xb_9-z-Q", true},
		{"blue-fox-88", true},
		{long64, true},
		{"q7Rk2mW", false}, // the earlier 4-character rule is gone for new codes
		{"q7Rk", false},
		{"abc", false},
		{long64 + "z", false},
		{"", false},
		{"q7Rk 2mWx", false},
		{"q7Rk2mWx/", false},
		{"q7Rk2mWé", false},
		{"q7Rk2.mWx", false},
		{"q7Rk2mWx\n", false},
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

// TestConnectionCodeStrength: a chosen code a guesser tries early is
// refused with the reason, whatever its case; random and many-word codes
// pass. The rule behind issue 27: "password" was linked on the first try.
func TestConnectionCodeStrength(t *testing.T) {
	t.Parallel()
	cases := []struct {
		code string
		why  string // "" when the code is strong enough
	}{
		{"password", "it is a common password"},
		{"PassWord", "it is a common password"}, // compared ignoring case, so judged so
		{"Passw0rd", "it is a common password"},
		{"drowssap", "it is a common password spelled backwards"},
		{"qwertyuiop", "it is a common password"},
		{"iloveyou2", "it is a common password"},
		{"monkey12", "it is a common password"},
		{"letmein123", "it contains a common password"},
		{"aaaaaaaa", "it is a repeated character or group"},
		{"abcabcabc", "it is a repeated character or group"},
		{"12345678", "it is a common password"},
		{"98765432", "it is a sequence of letters or digits"},
		{"abcdefgh", "it is a sequence of letters or digits"},
		{"qwerfdsazxcv", "it is a keyboard pattern"}, // 1.75e8 guesses, but a walk from end to end
		{"zxcvbn-asdf", "it contains a common password"},
		{"x7kqx7kqx7kqx7kq", "it is a repeated character or group"},
		{"sunshine", "it is a common password"},
		{"lighthouse", "it is a common word or name"},
		{"tandem-code", "it contains a word everyone tries for this app"},
		{"1990-12-31", "it is a date or year"},
		{"ourcode1", "it contains"},
		{"q7rk2mw", "it is too short"}, // shape aside, seven random characters are too few
		{"q7Rk2mWx", ""},
		{"k7hq4mpz9r", ""},
		{"blue-fox-88", ""},
		{"purple-otter-3", ""},
		{"correcthorsebatterystaple", ""},
	}
	for _, tc := range cases {
		err := partners.CheckConnectionStrength(tc.code)
		switch {
		case tc.why == "" && err != nil:
			t.Errorf("%q refused: %v", tc.code, err)
		case tc.why == "":
		case err == nil:
			t.Errorf("%q accepted, want refused: %s", tc.code, tc.why)
		case !core.IsKind(err, core.KindInvalid) || core.As(err).Code != "invalid_request" ||
			!strings.HasPrefix(core.As(err).Message, "connectionCode is too easy to guess: "+tc.why):
			t.Errorf("%q: %v, want %q", tc.code, err, tc.why)
		}
	}
}

// TestNewConnectionCode: drawn codes are three groups of four characters of
// the alphabet (no 0/O/1/I/l), every character turns up, they do not repeat,
// and each passes the rule for chosen codes.
func TestNewConnectionCode(t *testing.T) {
	t.Parallel()
	shape := regexp.MustCompile(`^[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{4}(-[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{4}){2}$`)
	seen := map[string]bool{}
	used := map[rune]bool{}
	for range 500 {
		c := partners.NewConnectionCode()
		if !shape.MatchString(c) || strings.ContainsAny(c, "0O1Il") || len(c) < 10 {
			t.Fatalf("drew %q", c)
		}
		if err := partners.ValidateConnectionCode(c); err != nil {
			t.Fatalf("drew %q: %v", c, err)
		}
		seen[c] = true
		for _, r := range strings.ReplaceAll(c, "-", "") {
			used[r] = true
		}
	}
	if len(seen) != 500 || len(used) != len(partners.ConnectionCodeAlphabet) {
		t.Fatalf("%d distinct codes, %d distinct characters", len(seen), len(used))
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
