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
		{"password", "it contains a common password"},
		{"PassWord", "it contains a common password"}, // compared ignoring case, so judged so
		{"Passw0rd", "it contains a common password"},
		{"drowssap", "it contains a common word, name or password spelled backwards"},
		{"qwertyuiop", "it contains a common password"},
		{"iloveyou2", "it contains a common password"},
		{"monkey12", "it contains a common password"},
		{"letmein123", "it contains a common password"},
		{"aaaaaaaa", "it contains a repeated character or group"},
		{"abcabcabc", "it contains a repeated character or group"},
		{"12345678", "it contains a common password"},
		{"98765432", "it contains a sequence of letters or digits"},
		{"abcdefgh", "it contains a sequence of letters or digits"},
		{"qwerfdsazxcv", "it contains a keyboard pattern"}, // 1.75e8 guesses, but a walk from end to end
		{"zxcvbn-asdf", "it contains a common password"},
		{"x7kqx7kqx7kqx7kq", "it contains a repeated character or group"},
		{"sunshine", "it contains a common password"},
		{"lighthouse", "it contains a common word or name"},
		{"tandem-code", "it contains a word everyone tries for this app"},
		{"1990-12-31", "it contains a date or year"},
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

// TestConnectionCodeLovePhrases: a code made of the love phrases of the
// supported languages (and a few more), with fillers such as "forever" and
// "my", separators, leetspeak and a year or date, is refused with its
// reason (zxcvbn lets every one of them pass); a code that only holds a
// love word among random characters, or is words of another kind, is not.
func TestConnectionCodeLovePhrases(t *testing.T) {
	t.Parallel()
	cases := []struct {
		code    string
		refused bool
	}{
		// the three
		{"iloveyou_forever", true},
		{"mi_amor_2024", true},
		{"ichliebedich", true},
		// English
		{"ILoveYou-Forever", true},
		{"love-you-always", true},
		{"babylove-forever", true},
		{"my-love-4ever", true},
		{"1l0v3y0u-4lw4ys", true}, // leetspeak
		{"sweetheart-xoxo", true},
		{"honey_bunny_2019", true},
		// German
		{"ich-liebe-dich-schatz", true},
		{"mein_schatz_fuer_immer", true},
		{"hab-dich-lieb-2023", true},
		{"schaetzchen-14022024", true}, // ä written ae, a date
		// French
		{"jetaime-mon-amour", true},
		{"je_taime_pour_toujours", true},
		{"mon-coeur-2020", true},
		{"ma-cherie-toujours", true},
		// Spanish
		{"teamo-siempre", true},
		{"te-quiero-mucho", true},
		{"mi-vida-mi-amor", true},
		{"amor-eterno-1999", true},
		{"mi-corazon-123", true},
		// Portuguese (Brazil)
		{"eu-te-amo-2023", true},
		{"meuamor123", true},
		{"te_amo_pra_sempre", true},
		{"amo-voce-meu-bem", true},
		// Japanese, Russian (romanised: a code is ASCII)
		{"aishiteru-zutto", true},
		{"daisuki-dayo-2024", true},
		{"ya-tebya-lyublyu", true},
		{"lyublyu-tebya-navsegda", true},
		{"moya-lyubov-2022", true},
		// Italian, Dutch, Chinese, Korean, Polish, Turkish
		{"ti-amo-amore-mio", true},
		{"tiamo-per-sempre", true},
		{"ik-hou-van-jou", true},
		{"woaini-1314", true},
		{"saranghae-yeobo", true},
		{"kocham_cie_kochanie", true},
		{"seni-seviyorum-2024", true},
		// digits beside the phrases: a year, a date, eight at most
		{"teamo-83920571", true},
		// passes: enough random characters or digits beside a love word,
		// or words that are no love phrase
		{"teamo-839205716", false},
		{"iloveyou-q7Rk2mWx", false},
		{"blue-fox-88", false},
		{"purple-otter-3", false},
		{"Tide-Lantern-47", false},
		{"q7Rk2mWx", false},
		{"correcthorsebatterystaple", false},
		{"forever-and-always-q7", false}, // no love word in it
		{"lovelace-ada-1815", false},
	}
	const why = "connectionCode is too easy to guess: it is made of common love phrases"
	for _, tc := range cases {
		err := partners.ValidateConnectionCode(tc.code)
		switch {
		case !tc.refused && err != nil && strings.Contains(core.As(err).Message, "love"):
			t.Errorf("%q refused as a love phrase: %v", tc.code, err)
		case !tc.refused:
		case err == nil:
			t.Errorf("%q accepted, want refused", tc.code)
		case !core.IsKind(err, core.KindInvalid) || core.As(err).Code != "invalid_request":
			t.Errorf("%q: %v, want 400 invalid_request", tc.code, err)
		case core.As(err).Message != why: // zxcvbn lets every one of them pass
			t.Errorf("%q: %q, want %q", tc.code, core.As(err).Message, why)
		}
		if tc.refused != partners.LovePhrase(tc.code) {
			t.Errorf("LovePhrase(%q) = %v", tc.code, !tc.refused)
		}
	}
	// The native spellings (no code can hold them: codes are ASCII) are in
	// the vocabulary too, for any text the rule judges.
	for _, s := range []string{"愛してる", "大好き", "我爱你", "我愛你", "사랑해", "я тебя люблю", "Люблю тебя навсегда",
		"je t'aime", "Te amo ♥ 2024", "ich liebe dich", "für immer dein", "mi corazón", "meu coração", "mon cœur"} {
		if !partners.LovePhrase(s) {
			t.Errorf("LovePhrase(%q) = false", s)
		}
	}
}
