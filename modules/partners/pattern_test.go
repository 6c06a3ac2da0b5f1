package partners_test

import (
	"testing"

	"tandem/core/coretest"
	"tandem/modules/partners"
)

// TestPairingCodePatternIsNormalizePairingCode: the document's pattern of
// a submitted pairing code takes exactly what NormalizePairingCode takes.
func TestPairingCodePatternIsNormalizePairingCode(t *testing.T) {
	rule := func(s string) bool { _, ok := partners.NormalizePairingCode(s); return ok }
	var alphabet []rune
	for c := rune(' '); c <= '~'; c++ {
		alphabet = append(alphabet, c)
	}
	alphabet = append(alphabet, 'ſ', '\t', 0x3000)
	coretest.SamePattern(t, partners.PairingCodePattern, 0, rule, alphabet, 1,
		"K7QXM2", "k7qxm2", " K7QXM2\n", "K7QXM", "K7QXM22", "K7QXMI", "K7QXMO", "K7QXM1", "K7QXM0", "K7QXMl", "K7QXMſ", "ABCDEFGHJKLMNPQRSTUVWXYZ"[:6], "234567", "89ZZZZ")
	coretest.SamePattern(t, partners.PairingCodePattern, 0, rule, []rune{'A', 'i', 'o', 'l', '1', '9', ' '}, 6)
}
