package notifications

import (
	"strings"
	"time"

	"tandem/core"
)

// Platform is where the app runs, one for every module.
type Platform = core.Platform

// Provider is the push service that delivers to a device's token.
type Provider string

const (
	ProviderExpo Provider = "expo"
	ProviderFCM  Provider = "fcm"
)

// ParseProvider accepts expo and fcm.
func ParseProvider(s string) (Provider, error) {
	switch p := Provider(s); p {
	case ProviderExpo, ProviderFCM:
		return p, nil
	case "":
		return "", core.Invalid("invalid_request", "provider is required: expo or fcm")
	}
	return "", core.Invalid("invalid_request", "provider must be expo or fcm")
}

// MaxToken bounds a push token (FCM tokens are about 160 characters, Expo's 40).
const MaxToken = 1024

// TokenPattern is ValidateToken's rule for any provider as the API document
// states it (with maxLength MaxToken); ExpoTokenPattern is Expo's form.
const (
	TokenPattern     = `^[!-~]+$`
	ExpoTokenPattern = `^Expo(?:nent)?PushToken\[[!-~]+\]$`
)

// ValidateToken checks a push token: printable ASCII without spaces, at most
// MaxToken long; an Expo token has Expo's own form, ExponentPushToken[...] or
// ExpoPushToken[...], which is all Expo's API accepts.
func ValidateToken(p Provider, token string) error {
	if token == "" {
		return core.Invalid("invalid_request", "token is required")
	}
	if len(token) > MaxToken {
		return core.Invalid("invalid_request", "token must be at most 1024 characters")
	}
	for i := 0; i < len(token); i++ {
		if token[i] <= ' ' || token[i] > '~' {
			return core.Invalid("invalid_request", "token must be printable ASCII without spaces")
		}
	}
	if p == ProviderExpo && !isExpoToken(token) {
		return core.Invalid("invalid_request", "an expo token looks like ExponentPushToken[...]")
	}
	return nil
}

func isExpoToken(t string) bool {
	for _, prefix := range []string{"ExponentPushToken[", "ExpoPushToken["} {
		if strings.HasPrefix(t, prefix) && strings.HasSuffix(t, "]") && len(t) > len(prefix)+1 {
			return true
		}
	}
	return false
}

// Device is a registered push target. A token belongs to one device, and so
// to one user: another user registering it takes it as a new device.
type Device struct {
	ID        string
	UserID    string
	Token     string
	Platform  Platform
	Provider  Provider
	CreatedAt time.Time
	UpdatedAt time.Time // the last registration
}

// MaxDevices is how many devices a user keeps: registering one more forgets
// the least recently registered (reinstalls make new tokens, and a token no
// provider has reported dead yet would otherwise be pushed to forever).
const MaxDevices = 10

// Registration is a device registration request.
type Registration struct {
	Token    string
	Platform string
	Provider string
}

// Message is what a push carries.
type Message struct {
	NotificationID string
	Title          string
	Body           string
	Category       Category
}

// Outcome is what became of one device's push.
type Outcome uint8

const (
	// OutcomeFailed: not accepted (the provider is unreachable, refused the
	// message, or is not configured); the device is kept.
	OutcomeFailed Outcome = iota
	// OutcomeDelivered: accepted by the provider (or by the log/memory sender).
	OutcomeDelivered
	// OutcomeDeadToken: the provider says the token will never work again;
	// the device is removed.
	OutcomeDeadToken
)

// Delivery is the outcome of one device's push; Err says why it failed, for
// the log. Ticket is the provider's id of an accepted push whose delivery it
// reports later (an Expo ticket; see Receipts), "" when there is none.
type Delivery struct {
	Outcome Outcome
	Err     error
	Ticket  string
}
