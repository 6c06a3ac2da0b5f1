package core_test

import (
	"strings"
	"testing"

	"tandem/core"
	"tandem/core/coretest"
)

// textRunes are the characters the text patterns tell apart: letters,
// every kind of space TrimSpace trims (controls among them), the controls
// and bidirectional characters CheckText refuses, and some it allows.
var textRunes = []rune{'a', 'é', ' ', '\t', '\n', '\r', '\v', '\f', 0x85, 0xA0, 0x1680, 0x2000, 0x200A, 0x2028,
	0x202F, 0x3000, 0x00, 0x1F, 0x7F, 0x9F, 0x202A, 0x202E, 0x2066, 0x2069, 0x200E, 0xFEFF, 0x180E}

// TestTextPatternsAreCheckText: each text pattern of the API document
// accepts exactly what its rule accepts (CheckText after TrimSpace, blank
// or not), on every string of up to three of textRunes.
func TestTextPatternsAreCheckText(t *testing.T) {
	check := func(multiline, required bool) func(string) bool {
		return func(s string) bool {
			text := strings.TrimSpace(s)
			return (text != "" || !required) && core.CheckText("f", text, multiline) == nil
		}
	}
	for _, c := range []struct {
		name, pattern       string
		multiline, required bool
	}{
		{"TrimmedLine", core.TrimmedLinePattern, false, false},
		{"TrimmedLineRequired", core.TrimmedLineRequiredPattern, false, true},
		{"TrimmedText", core.TrimmedTextPattern, true, false},
		{"TrimmedTextRequired", core.TrimmedTextRequiredPattern, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			coretest.SamePattern(t, c.pattern, 0, check(c.multiline, c.required), textRunes, 3)
		})
	}
	t.Run("NotBlank", func(t *testing.T) {
		coretest.SamePattern(t, core.NotBlankPattern, 0, func(s string) bool { return strings.TrimSpace(s) != "" }, textRunes, 3)
	})
}

// TestVersionPatternIsParseVersion: the document's version pattern takes
// exactly what ParseVersion takes.
func TestVersionPatternIsParseVersion(t *testing.T) {
	rule := func(s string) bool { _, err := core.ParseVersion(s); return err == nil }
	coretest.SamePattern(t, core.VersionPattern, 0, rule, []rune{'1', '.', '+', 'v', ' ', 'x'}, 6,
		"1.2.3", " v1.2.3+45 ", "123456789.123456789.123456789+123456789", "1234567890.1.1", "1.2.3+1234567890",
		"\u30001.2\u3000", "V1.2.3", "1.2.3.4", "-1.2.3", "1.2.3-beta", "1.2.+3", "v", "1.2.3+", "01.02.03")
}

// TestLocalePatternIsParseLocale: the document's locale pattern takes
// exactly what ParseLocale takes (its length aside, stated as maxLength).
func TestLocalePatternIsParseLocale(t *testing.T) {
	rule := func(s string) bool { _, err := core.ParseLocale(s); return err == nil }
	coretest.SamePattern(t, core.LocalePattern, 0, rule, []rune{'a', 'B', '1', '-', '_', ' '}, 5,
		"de", "pt-BR", "pt_br", " zh-Hant-TW ", "es-419", "sl-rozaj", "de-1901", "en-US-x-twain", "e", "english",
		"de-DE-1", "zh-Hant-Hans", "x-klingon", "und-0001", "\tfr\n", "sr-Latn-RS-1234")
}

// TestCursorPatternIsAnOuterBound: every cursor EncodeCursor hands out
// matches the document's pattern, and what it refuses DecodeCursor refuses.
func TestCursorPatternIsAnOuterBound(t *testing.T) {
	re := coretest.Pattern(t, core.CursorPattern)
	for _, parts := range [][]string{{"2025-06-15", "id-1"}, {"ümlaut", "?&/"}, {""}, {"a\x1fb"}} {
		if c := core.EncodeCursor(parts...); !re.MatchString(c) {
			t.Errorf("%q: handed out, but the pattern refuses it", c)
		}
	}
	for _, c := range []string{"a+b", "a/b", "YQ==", "a b", "!"} {
		if re.MatchString(c) {
			t.Errorf("%q matches", c)
		}
		if _, err := core.DecodeCursor(c, 1); err == nil {
			t.Errorf("%q decoded", c)
		}
	}
}
