package feedback

import "tandem/core"

// Rules are the limits and patterns the API document names ("feedback.MaxMessage"):
// it states them by reading these, so a rule is written once, here.
var Rules = core.Rules{
	Limits: map[string]int{
		"MaxMessage": MaxMessage,
	},
}
