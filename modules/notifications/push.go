package notifications

import (
	"time"

	"tandem/core"
)

// Platform is where the app runs, one for every module.
type Platform = core.Platform

// MaxToken bounds a push token, whatever its provider.
const MaxToken = 1024

// TokenPattern is ValidateToken's rule as the API document states it (with
// maxLength MaxToken); a provider's own form is its adapter's.
const TokenPattern = `^[!-~]+$`

// ValidateToken checks what every push token is: printable ASCII without
// spaces, at most MaxToken long. The shape a provider asks besides is its
// adapter's (Providers.CheckToken).
func ValidateToken(token string) error {
	if token == "" {
		return core.Required("token")
	}
	if len(token) > MaxToken {
		return core.TooLong("token", MaxToken)
	}
	for i := 0; i < len(token); i++ {
		if token[i] <= ' ' || token[i] > '~' {
			return core.Invalid("invalid_request", "notifications.tokenPrintableASCIIWithoutSpaces", "token must be printable ASCII without spaces")
		}
	}
	return nil
}

// Device is a registered push target. A token belongs to one device, and so
// to one user: another user registering it takes it as a new device.
type Device struct {
	ID        string
	UserID    string
	Token     string
	Platform  Platform
	Provider  string // the push provider's name, one Providers knows
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
// reports later (see Receipts), "" when there is none.
type Delivery struct {
	Outcome Outcome
	Err     error
	Ticket  string
}
