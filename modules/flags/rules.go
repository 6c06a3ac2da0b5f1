package flags

import "tandem/core"

// Rules are the limits and patterns the API document names ("flags.MaxKey"):
// it states them by reading these, so a rule is written once, here.
var Rules = core.Rules{
	Limits: map[string]int{
		"MaxKey":         MaxKey,
		"MaxName":        MaxName,
		"MaxDescription": MaxDescription,
		"MaxCreatedBy":   MaxCreatedBy,
		"MaxUserID":      MaxUserID,
		"MaxListedUsers": MaxListedUsers,
		"MaxRollout":     MaxRollout,
	},
	Patterns: map[string]string{
		"KeyPattern":       KeyPattern,
		"StoredKeyPattern": StoredKeyPattern,
	},
}
