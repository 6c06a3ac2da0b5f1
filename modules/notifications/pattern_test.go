package notifications_test

import (
	"strings"
	"testing"

	"tandem/core/coretest"
	"tandem/modules/notifications"
)

// TestTokenPatternsAreValidateToken: the document's token pattern, with
// maxLength MaxToken, takes exactly what ValidateToken takes (any provider's
// rule; Expo's own form is adapters/push/expo's TokenPattern).
func TestTokenPatternsAreValidateToken(t *testing.T) {
	runes := []rune{'a', '!', '~', '[', ']', ' ', '\t', 0x7F, 'é'}
	long := strings.Repeat("a", notifications.MaxToken)
	coretest.SamePattern(t, notifications.TokenPattern, notifications.MaxToken, func(s string) bool {
		return notifications.ValidateToken(s) == nil
	}, runes, 3, long, long+"a")
}
