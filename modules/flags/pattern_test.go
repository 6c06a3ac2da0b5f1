package flags_test

import (
	"strings"
	"testing"

	"tandem/core/coretest"
	"tandem/modules/flags"
)

var keyRunes = []rune{'a', 'z', '0', '9', '_', '.', '-', 'A', ' ', '/'}

// TestKeyPatternIsValidateKey: the document's pattern for a new key, with
// its maxLength, takes exactly what ValidateKey takes; the pattern of a
// stored key exactly what a lookup takes (Flag.Validate's first rule).
func TestKeyPatternIsValidateKey(t *testing.T) {
	long := strings.Repeat("a", flags.MaxKey)
	extra := []string{long, long + "a", "_" + long[1:], "-" + long}
	coretest.SamePattern(t, flags.KeyPattern, flags.MaxKey, func(s string) bool {
		return flags.ValidateKey(s) == nil
	}, keyRunes, 3, extra...)
	// A refusal of a stored key's shape names the key; a valid key with a
	// name is a valid flag.
	coretest.SamePattern(t, flags.StoredKeyPattern, 0, func(s string) bool {
		return flags.Flag{Key: s, Name: "n"}.Validate() == nil
	}, keyRunes, 3, extra...)
}
