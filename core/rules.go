package core

// Rules are a package's limits and patterns by name (an ECMA-262 pattern
// each), as the API document names them: "maxLength": "events.MaxTitle"
// reads events.Rules.Limits["MaxTitle"]. Each module keeps its own beside
// its constants, so a rule is written once and the document, the error
// text and the tests read it from there.
type Rules struct {
	Limits   map[string]int
	Patterns map[string]string
}

// CoreRules are core's own.
var CoreRules = Rules{
	Limits: map[string]int{"MaxPageLimit": MaxPageLimit, "MaxMillis": MaxMillis, "MaxLocale": MaxLocale},
	Patterns: map[string]string{
		"TrimmedLinePattern":         TrimmedLinePattern,
		"TrimmedLineRequiredPattern": TrimmedLineRequiredPattern,
		"TrimmedTextPattern":         TrimmedTextPattern,
		"TrimmedTextRequiredPattern": TrimmedTextRequiredPattern,
		"NotBlankPattern":            NotBlankPattern,
		"VersionPattern":             VersionPattern,
		"LocalePattern":              LocalePattern,
		"CursorPattern":              CursorPattern,
	},
}
