package push

import (
	"tandem/adapters/push/expo"
	"tandem/adapters/push/fcm"
	"tandem/core"
	"tandem/modules/notifications"
)

var _ notifications.Providers = Providers{}

// Providers are the push providers a device may name: every provider
// adapter, each with the shape of its tokens. A provider TANDEM_PUSH does
// not configure is still one: its devices register, and are pushed once it
// is configured (until then they go to the log or memory sender, or fail).
// A new provider is a sub-package and a line here.
type Providers struct{}

// tokenRules are the providers by name, each with its token rule.
var tokenRules = map[string]func(token string) error{
	expo.Name: expo.CheckToken,
	fcm.Name:  fcm.CheckToken,
}

// CheckProvider takes expo and fcm.
func (Providers) CheckProvider(name string) error {
	if name == "" {
		return core.Invalid("invalid_request", "push.providerRequiredExpoFcm", "provider is required: expo or fcm")
	}
	if _, ok := tokenRules[name]; !ok {
		return core.Invalid("invalid_request", "push.providerExpoFcm", "provider must be expo or fcm")
	}
	return nil
}

// CheckToken checks token against the rule of the provider name; an unknown
// name has none (CheckProvider refuses it first).
func (Providers) CheckToken(name, token string) error {
	if check, ok := tokenRules[name]; ok {
		return check(token)
	}
	return nil
}
