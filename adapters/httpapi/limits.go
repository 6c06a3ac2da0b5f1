package httpapi

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"tandem/adapters/push/expo"
	"tandem/adapters/web"
	"tandem/core"
)

// documentRules are the rules the OpenAPI parts may name instead of
// stating them, by package: "maxLength": "events.MaxTitle" becomes
// events.MaxTitle and "pattern": "events.DatePattern" its pattern when the
// parts are merged, so the document cannot drift from the rule it
// describes. Each package keeps its rules beside its constants (core.Rules)
// and its handler file names them (documentRulesOf), so no list here names
// every module; tests/limits_test.go finds every place a part names a
// limit, checks the merged document there and the database columns that
// keep such values, and refuses a limit a part states as a number.
var documentRules = map[string]core.Rules{}

// documentRulesOf lets the document name pkg's rules. A handler file
// calls it once, in a package-level var, as it does exportSection.
func documentRulesOf(pkg string, r core.Rules) bool {
	documentRules[pkg] = r
	return true
}

var (
	_ = documentRulesOf("core", core.CoreRules)
	_ = documentRulesOf("expo", expo.Rules) // the provider's token form is its adapter's
	_ = documentRulesOf("web", web.Rules)   // the request id's form is the shared web layer's
)

// docLimit is the limit "pkg.Name" names, if any.
func docLimit(name string) (int, bool) {
	pkg, n, _ := strings.Cut(name, ".")
	v, ok := documentRules[pkg].Limits[n]
	return v, ok
}

// DocumentLimit is the limit "pkg.Name" names in the document's parts, if
// any: tests/limits_test.go checks the merged document against it.
func DocumentLimit(name string) (int, bool) { return docLimit(name) }

// DocumentPattern is the pattern "pkg.NamePattern" names, if any.
func DocumentPattern(name string) (string, bool) { return docPattern(name) }

// docPattern is the pattern "pkg.NamePattern" names, if any.
func docPattern(name string) (string, bool) {
	pkg, n, _ := strings.Cut(name, ".")
	v, ok := documentRules[pkg].Patterns[n]
	return v, ok
}

// patternName is the shape of a pattern's name, which no pattern of the
// document has.
var patternName = regexp.MustCompile(`^[a-z]+\.[A-Z][A-Za-z]*Pattern$`)

// limitKeywords are the schema keywords whose value may name a docLimit.
var limitKeywords = map[string]bool{
	"maxLength": true, "minLength": true,
	"maxItems": true, "minItems": true,
	"maximum": true, "minimum": true,
}

// resolveLimits replaces every limit keyword of v whose value is a string
// with the docLimit it names, and every pattern that names a docPattern
// with it; a limit's name that is no docLimit is an error, naming the part
// and the place.
func resolveLimits(v any, where string) error {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			if name, ok := x[k].(string); ok && k == "pattern" {
				if p, named := docPattern(name); named {
					x[k] = p
				} else if patternName.MatchString(name) {
					return fmt.Errorf("%s/%s: %q is no pattern of a package's Rules (adapters/httpapi/limits.go)", where, k, name)
				}
				continue
			}
			if name, ok := x[k].(string); ok && limitKeywords[k] {
				n, known := docLimit(name)
				if !known {
					return fmt.Errorf("%s/%s: %q is no limit of a package's Rules (adapters/httpapi/limits.go)", where, k, name)
				}
				x[k] = n
				continue
			}
			if err := resolveLimits(x[k], where+"/"+pointerToken(k)); err != nil {
				return err
			}
		}
	case []any:
		for i, c := range x {
			if err := resolveLimits(c, fmt.Sprintf("%s/%d", where, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// sortedKeys orders a part's keys, so the first bad name is always the same.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// pointerToken escapes a key for a JSON pointer (RFC 6901).
func pointerToken(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}
