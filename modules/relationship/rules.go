package relationship

import "tandem/core"

// Rules are the limits and patterns the API document names ("relationship.MaxMilestones"):
// it states them by reading these, so a rule is written once, here.
var Rules = core.Rules{
	Limits: map[string]int{
		"MaxMilestones":      MaxMilestones,
		"FirstMilestoneDays": FirstMilestoneDays,
	},
}
