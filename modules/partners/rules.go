package partners

import "tandem/core"

// Rules are the limits and patterns the API document names ("partners.PairingCodePattern"):
// it states them by reading these, so a rule is written once, here.
var Rules = core.Rules{
	Patterns: map[string]string{
		"PairingCodePattern": PairingCodePattern,
	},
}
