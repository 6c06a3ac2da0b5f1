package core

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// CheckText refuses user text that can disguise itself or what surrounds it
// when shown in the app, a push, a mail or a log: invalid UTF-8, control
// characters (C0, DEL and C1; a multiline text may hold tab, line feed and
// carriage return), and the bidirectional embedding, override and isolate
// characters (U+202A–U+202E, U+2066–U+2069), which reorder what follows them
// ("Trojan Source"). The marks U+200E, U+200F and U+061C stay allowed: they
// change no order beyond their neighbours, and right-to-left writers need
// them. The 400 names field.
func CheckText(field, s string, multiline bool) error {
	if !utf8.ValidString(s) {
		return Invalid("invalid_request", "core.validUTF8", "%s must be valid UTF-8", field)
	}
	for _, r := range s {
		switch {
		case multiline && (r == '\t' || r == '\n' || r == '\r'):
		case unicode.IsControl(r):
			if multiline {
				return Invalid("invalid_request", "core.notContainControlCharactersOther", "%s must not contain control characters other than tab and newline", field)
			}
			return Invalid("invalid_request", "core.notContainControlCharactersTab", "%s must not contain control characters (tab and newline included)", field)
		case isBidiControl(r):
			return Invalid("invalid_request", "core.notContainBidirectionalOverrideIsolate", "%s must not contain bidirectional override or isolate characters", field)
		}
	}
	return nil
}

// isBidiControl is true for the embeddings and overrides (LRE, RLE, PDF,
// LRO, RLO) and the isolates (LRI, RLI, FSI, PDI).
func isBidiControl(r rune) bool {
	return r >= '\u202A' && r <= '\u202E' || r >= '\u2066' && r <= '\u2069'
}

// CleanText keeps of s what CheckText allows in a single line, dropping the
// rest: for text the service records from a request but no user typed (a
// User-Agent shown in the session list), where refusing the request would be
// wrong and storing invalid UTF-8 fails on MySQL.
func CleanText(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || isBidiControl(r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, ""))
}

// The API document states CheckText and the trimming before it as patterns
// (JSON Schema's ECMA-262 regular expressions). Their character classes
// hold the characters themselves, not \uXXXX escapes, which Go's regexp
// (and so every Go validator) cannot read; the document escapes them in
// its JSON text (see httpapi's mergeOpenAPI). Each is exactly its rule:
// core's tests compare them on every short string of the characters that
// matter.
const (
	// textSpace is what strings.TrimSpace trims (unicode.IsSpace).
	textSpace = "\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
	// textSpaceShown is the part of textSpace that is no control character.
	textSpaceShown = " \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
	// lineRefused is what CheckText refuses in a single line, textRefused
	// in a multiline text (tab, line feed and carriage return allowed).
	lineRefused = "\x00-\x1f\u007f-\u009f\u202a-\u202e\u2066-\u2069"
	textRefused = "\x00-\x08\v\f\x0e-\x1f\u007f-\u009f\u202a-\u202e\u2066-\u2069"
)

// SpaceClass is textSpace for the patterns of other modules: the body of
// a character class of what strings.TrimSpace trims.
const SpaceClass = textSpace

const (
	// TrimmedLinePattern is a single line checked after TrimSpace: the
	// spaces (and line breaks) around it are dropped, inside it no control
	// or bidirectional override character.
	TrimmedLinePattern = `^[` + textSpace + `]*(?:[^` + lineRefused + textSpaceShown + `][^` + lineRefused + `]*)?[` + textSpace + `]*$`
	// TrimmedLineRequiredPattern is TrimmedLinePattern, not blank.
	TrimmedLineRequiredPattern = `^[` + textSpace + `]*[^` + lineRefused + textSpaceShown + `][^` + lineRefused + `]*[` + textSpace + `]*$`
	// TrimmedTextPattern is a multiline text checked after TrimSpace.
	TrimmedTextPattern = `^[` + textSpace + `]*(?:[^` + textRefused + textSpaceShown + "\t\n\r" + `][^` + textRefused + `]*)?[` + textSpace + `]*$`
	// TrimmedTextRequiredPattern is TrimmedTextPattern, not blank.
	TrimmedTextRequiredPattern = `^[` + textSpace + `]*[^` + textRefused + textSpaceShown + "\t\n\r" + `][^` + textRefused + `]*[` + textSpace + `]*$`
	// NotBlankPattern holds a character TrimSpace keeps.
	NotBlankPattern = `[^` + textSpace + `]`
)
