package expo

import (
	"strings"

	"tandem/core"
)

// Name is the provider name a device registered for Expo gives.
const Name = "expo"

// TokenPattern is CheckToken's rule (with the module's: printable ASCII, at
// most notifications.MaxToken) as the API document states it.
const TokenPattern = `^Expo(?:nent)?PushToken\[[!-~]+\]$`

// CheckToken takes Expo's own form of a token, ExponentPushToken[...] or
// ExpoPushToken[...], which is all Expo's API accepts.
func CheckToken(token string) error {
	for _, prefix := range []string{"ExponentPushToken[", "ExpoPushToken["} {
		if strings.HasPrefix(token, prefix) && strings.HasSuffix(token, "]") && len(token) > len(prefix)+1 {
			return nil
		}
	}
	return core.Invalid("invalid_request", "expo.expoTokenLooksLikeExponentPushToken", "an expo token looks like ExponentPushToken[...]")
}

// Rules are the expo rules the API document names ("expo.TokenPattern").
var Rules = core.Rules{Patterns: map[string]string{"TokenPattern": TokenPattern}}
