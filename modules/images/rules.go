package images

import "tandem/core"

// Rules are the limits and patterns the API document names ("images.MaxPerUpload"):
// it states them by reading these, so a rule is written once, here.
var Rules = core.Rules{
	Limits: map[string]int{
		"MaxPerUpload":   MaxPerUpload,
		"MaxGroupUpdate": MaxGroupUpdate,
	},
	Patterns: map[string]string{
		"KeyPattern": KeyPattern,
		"URLPattern": URLPattern,
	},
}
