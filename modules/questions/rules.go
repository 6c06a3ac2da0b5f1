package questions

import "tandem/core"

// Rules are the limits and patterns the API document names ("questions.MaxText"):
// it states them by reading these, so a rule is written once, here.
var Rules = core.Rules{
	Limits: map[string]int{
		"MaxText":     MaxText,
		"MaxReaction": MaxReaction,
		"MaxHistory":  MaxHistory,
	},
}
