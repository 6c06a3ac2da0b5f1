package core_test

import (
	"testing"
	"unicode"
	"unicode/utf8"

	"tandem/core"
)

func TestCheckText(t *testing.T) {
	t.Parallel()
	const (
		control   = "title must not contain control characters (tab and newline included)"
		controlML = "title must not contain control characters other than tab and newline"
		bidi      = "title must not contain bidirectional override or isolate characters"
		utf       = "title must be valid UTF-8"
	)
	cases := []struct {
		name      string
		in        string
		multiline bool
		msg       string // "" accepted
	}{
		{"plain", "Our beach day", false, ""},
		{"empty", "", false, ""},
		{"accents and emoji", "Café ☕ 🏖️", false, ""},
		{"right-to-left text", "שלום עולם", false, ""},
		{"left-to-right and right-to-left marks", "abc\u200Eשלום\u200F", false, ""},
		{"arabic letter mark", "\u061Cمرحبا", false, ""},
		{"zero-width joiner in an emoji", "👩\u200D❤️\u200D👨", false, ""},
		{"tab in a name", "a\tb", false, control},
		{"newline in a name", "a\nb", false, control},
		{"carriage return in a name", "a\rb", false, control},
		{"NUL", "a\x00b", false, control},
		{"escape", "\x1b[31mred", false, control},
		{"DEL", "a\x7fb", false, control},
		{"C1 next line", "a\u0085b", false, control},
		{"tab, newline and CRLF in a long text", "one\ttwo\nthree\r\nfour", true, ""},
		{"NUL in a long text", "a\x00b", true, controlML},
		{"bell in a long text", "a\x07b", true, controlML},
		{"vertical tab in a long text", "a\vb", true, controlML},
		{"form feed in a long text", "a\fb", true, controlML},
		{"LRE", "a\u202Ab", false, bidi},
		{"RLE", "a\u202Bb", false, bidi},
		{"PDF", "a\u202Cb", false, bidi},
		{"LRO", "a\u202Db", false, bidi},
		{"RLO", "invoice\u202Efdp.exe", false, bidi},
		{"LRI", "a\u2066b", true, bidi},
		{"RLI", "a\u2067b", true, bidi},
		{"FSI", "a\u2068b", true, bidi},
		{"PDI", "a\u2069b", true, bidi},
		{"invalid UTF-8", "a\xffb", false, utf},
		{"invalid UTF-8 in a long text", "a\xc3", true, utf},
	}
	for _, tc := range cases {
		err := core.CheckText("title", tc.in, tc.multiline)
		switch {
		case tc.msg == "" && err != nil:
			t.Errorf("%s: refused: %v", tc.name, err)
		case tc.msg != "" && err == nil:
			t.Errorf("%s: accepted", tc.name)
		case tc.msg != "" && (core.KindOf(err) != core.KindInvalid || core.As(err).Code != "invalid_request" || core.As(err).Message != tc.msg):
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.msg)
		}
	}
}

func TestCleanText(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{"Tandem/1.4 (iPhone; iOS 18.1)", "Tandem/1.4 (iPhone; iOS 18.1)"},
		{"Café ☕ שלום\u200F", "Café ☕ שלום\u200F"},
		{"a\xff\xfeb", "ab"},
		{"a\x00b\tc\nd\x7fe\u0085f", "abcdef"},
		{"phone\u202Eenohpi\u2066x\u2069", "phoneenohpix"},
		{"\uFFFD stays", "\uFFFD stays"},
	}
	for _, tc := range cases {
		if got := core.CleanText(tc.in); got != tc.want {
			t.Errorf("CleanText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzCheckText: a text CheckText accepts is valid UTF-8 without control
// characters (tab, LF and CR only in a multiline text) or bidirectional
// overrides and isolates; CleanText always yields such a single-line text,
// and cleaning is idempotent.
func FuzzCheckText(f *testing.F) {
	for _, s := range []string{"Café ☕ שלום\u200F", "a\xff\xfeb", "a\x00b\tc\nd\x7fe\u0085f", "phone\u202Eenohpi\u2066x\u2069", "\r\n", ""} {
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, multiline bool) {
		if err := core.CheckText("f", s, multiline); err == nil {
			if !utf8.ValidString(s) {
				t.Fatalf("accepted invalid UTF-8 %q", s)
			}
			for _, r := range s {
				allowed := multiline && (r == '\t' || r == '\n' || r == '\r')
				if (unicode.IsControl(r) && !allowed) || (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069) {
					t.Fatalf("accepted %q holding %U", s, r)
				}
			}
		} else if e := core.As(err); e.Kind != core.KindInvalid || e.Code != "invalid_request" {
			t.Fatalf("CheckText(%q): %v, want a 400", s, err)
		}
		c := core.CleanText(s)
		if err := core.CheckText("f", c, false); err != nil {
			t.Fatalf("CleanText(%q) = %q, which CheckText refuses: %v", s, c, err)
		}
		if core.CleanText(c) != c {
			t.Fatalf("CleanText is not idempotent on %q", s)
		}
	})
}
