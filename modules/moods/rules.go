package moods

import "tandem/core"

// Rules are the limits and patterns the API document names ("moods.MaxNote"):
// it states them by reading these, so a rule is written once, here.
var Rules = core.Rules{
	Limits: map[string]int{
		"MaxNote": MaxNote,
	},
	Patterns: map[string]string{
		"DatePattern": DatePattern,
	},
}
