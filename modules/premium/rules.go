package premium

import "tandem/core"

// Rules are the limits and patterns the API document names ("premium.MaxPlan"):
// it states them by reading these, so a rule is written once, here.
var Rules = core.Rules{
	Limits: map[string]int{
		"MaxPlan":      MaxPlan,
		"MaxBillingID": MaxBillingID,
		"MaxProductID": MaxProductID,
		"MaxProof":     MaxProof,
	},
}
