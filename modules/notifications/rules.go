package notifications

import "tandem/core"

// Rules are the limits and patterns the API document names ("notifications.MaxTitle"):
// it states them by reading these, so a rule is written once, here.
var Rules = core.Rules{
	Limits: map[string]int{
		"MaxTitle":   MaxTitle,
		"MaxMessage": MaxMessage,
		"MaxToken":   MaxToken,
	},
	Patterns: map[string]string{
		"TokenPattern": TokenPattern,
	},
}
