package events

import "tandem/core"

// Rules are the limits and patterns the API document names ("events.MaxTitle"):
// it states them by reading these, so a rule is written once, here.
var Rules = core.Rules{
	Limits: map[string]int{
		"MaxTitle":         MaxTitle,
		"MaxDescription":   MaxDescription,
		"MaxLocation":      MaxLocation,
		"MaxParticipants":  MaxParticipants,
		"MaxParticipantID": MaxParticipantID,
		"MaxNotifyMinutes": MaxNotifyMinutes,
		"MaxNotifyDigits":  MaxNotifyDigits,
	},
	Patterns: map[string]string{
		"DatePattern":     DatePattern,
		"WallTimePattern": WallTimePattern,
		"NotifyPattern":   NotifyPattern,
	},
}
