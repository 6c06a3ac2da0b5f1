package partners

import (
	"strconv"

	"tandem/core"
)

// Rules are the limits and patterns the API document names ("partners.PairingCodePattern"):
// it states them by reading these, so a rule is written once, here.
var Rules = core.Rules{
	Limits: map[string]int{
		"PairingCodeLength":       PairingCodeLength,
		"MinConnectionCode":       MinConnectionCode,
		"MinStoredConnectionCode": MinStoredConnectionCode,
		"MaxConnectionCode":       MaxConnectionCode,
	},
	Patterns: map[string]string{
		"PairingCodePattern":    PairingCodePattern,
		"ConnectionCodePattern": ConnectionCodePattern,
		"LinkCodePattern":       LinkCodePattern,
	},
}

// ConnectionCodePattern is ValidateConnectionCode's shape as the API
// document states it (its strength check no pattern can), left out or empty
// allowed (the service draws the code then); LinkCodePattern is
// validateLinkCode's, which still takes codes of the earlier rule.
var (
	ConnectionCodePattern = `^(` + codeShapePattern(MinConnectionCode) + `)?$`
	LinkCodePattern       = `^` + codeShapePattern(MinStoredConnectionCode) + `$`
)

// codeShapePattern is connectionCodeShape(code, minLen) as a pattern.
func codeShapePattern(minLen int) string {
	return `[A-Za-z0-9_-]{` + strconv.Itoa(minLen) + `,` + strconv.Itoa(MaxConnectionCode) + `}`
}
