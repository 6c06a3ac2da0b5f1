package coretest

import (
	"regexp"
	"testing"
	"unicode/utf8"
)

var ecmaEscape = regexp.MustCompile(`\\u([0-9A-Fa-f]{4})`)

// Pattern compiles a pattern of the API document (ECMA-262, as JSON Schema
// has it) with Go's regexp, which writes \uXXXX as \x{XXXX}.
func Pattern(t testing.TB, p string) *regexp.Regexp {
	t.Helper()
	re, err := regexp.Compile(ecmaEscape.ReplaceAllString(p, `\x{$1}`))
	if err != nil {
		t.Fatalf("pattern %q: %v", p, err)
	}
	return re
}

// SamePattern fails t where pattern (with its maxLength, 0 for none) and
// rule disagree: on every string of at most n characters of alphabet, and
// on extra.
func SamePattern(t *testing.T, pattern string, maxLength int, rule func(string) bool, alphabet []rune, n int, extra ...string) {
	t.Helper()
	re := Pattern(t, pattern)
	wrong := 0
	check := func(s string) {
		got := re.MatchString(s) && (maxLength == 0 || utf8.RuneCountInString(s) <= maxLength)
		if want := rule(s); got != want && wrong < 10 {
			wrong++
			t.Errorf("%q: the pattern says %v, the rule %v", s, got, want)
		}
	}
	for _, s := range extra {
		check(s)
	}
	var walk func(prefix []rune)
	walk = func(prefix []rune) {
		check(string(prefix))
		if len(prefix) == n {
			return
		}
		for _, r := range alphabet {
			walk(append(prefix, r))
		}
	}
	walk(nil)
}
