package memories

import "tandem/core"

// Rules are the limits and patterns the API document names ("memories.MaxTitle"):
// it states them by reading these, so a rule is written once, here.
var Rules = core.Rules{
	Limits: map[string]int{
		"MaxTitle":       MaxTitle,
		"MaxDescription": MaxDescription,
		"MaxImages":      MaxImages,
		"MaxImageURL":    MaxImageURL,
	},
	Patterns: map[string]string{
		"DatePattern":  DatePattern,
		"ImagePattern": ImagePattern,
	},
}
