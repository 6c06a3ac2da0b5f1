package notifications_test

import (
	"strings"
	"testing"

	"tandem/core/coretest"
	"tandem/modules/notifications"
)

// TestTokenPatternsAreValidateToken: the document's token patterns, with
// maxLength MaxToken, take exactly what ValidateToken takes, for FCM (any
// provider's rule) and for Expo (its own form besides).
func TestTokenPatternsAreValidateToken(t *testing.T) {
	runes := []rune{'a', '!', '~', '[', ']', ' ', '\t', 0x7F, 'é'}
	long := strings.Repeat("a", notifications.MaxToken)
	coretest.SamePattern(t, notifications.TokenPattern, notifications.MaxToken, func(s string) bool {
		return notifications.ValidateToken(notifications.ProviderFCM, s) == nil
	}, runes, 3, long, long+"a")
	var expo []string
	for _, prefix := range []string{"ExponentPushToken[", "ExpoPushToken[", "ExpoPushToken", "expoPushToken[", "ExpoPushToken]"} {
		for _, middle := range []string{"", "x", "]", "[", "a b", "xxxxxxxxxxxxxxxxxxxxxx"} {
			for _, end := range []string{"", "]", "]]", "] "} {
				expo = append(expo, prefix+middle+end)
			}
		}
	}
	expo = append(expo, "ExpoPushToken["+long+"]")
	coretest.SamePattern(t, notifications.ExpoTokenPattern, notifications.MaxToken, func(s string) bool {
		return notifications.ValidateToken(notifications.ProviderExpo, s) == nil
	}, runes, 2, expo...)
}
