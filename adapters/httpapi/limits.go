package httpapi

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"tandem/adapters/push/expo"
	"tandem/core"
	"tandem/modules/accounts"
	"tandem/modules/events"
	"tandem/modules/feedback"
	"tandem/modules/flags"
	"tandem/modules/idempotency"
	"tandem/modules/images"
	"tandem/modules/memories"
	"tandem/modules/messages"
	"tandem/modules/moods"
	"tandem/modules/notifications"
	"tandem/modules/partners"
	"tandem/modules/premium"
	"tandem/modules/questions"
	"tandem/modules/relationship"
	"tandem/modules/versions"
)

// docLimits are the module limits an OpenAPI part may name instead of
// stating a number: "maxLength": "events.MaxTitle" becomes events.MaxTitle
// when the parts are merged, so the document cannot drift from the rule it
// describes. tests/limits_test.go checks each limit against the document and
// the database columns that keep such values.
var docLimits = map[string]int{
	"core.MaxPageLimit": core.MaxPageLimit,
	"core.MaxMillis":    core.MaxMillis,
	"core.MaxLocale":    core.MaxLocale,

	"accounts.MaxEmail":       accounts.MaxEmail,
	"accounts.MaxPassword":    accounts.MaxPassword,
	"accounts.MaxDisplayName": accounts.MaxDisplayName,
	"accounts.MaxNickname":    accounts.MaxNickname,
	"accounts.MaxTimezone":    accounts.MaxTimezone,

	"events.MaxTitle":         events.MaxTitle,
	"events.MaxDescription":   events.MaxDescription,
	"events.MaxLocation":      events.MaxLocation,
	"events.MaxParticipants":  events.MaxParticipants,
	"events.MaxParticipantID": events.MaxParticipantID,
	"events.MaxNotifyMinutes": events.MaxNotifyMinutes,
	"events.MaxNotifyDigits":  events.MaxNotifyDigits,

	"flags.MaxKey":         flags.MaxKey,
	"flags.MaxName":        flags.MaxName,
	"flags.MaxDescription": flags.MaxDescription,
	"flags.MaxCreatedBy":   flags.MaxCreatedBy,
	"flags.MaxUserID":      flags.MaxUserID,
	"flags.MaxListedUsers": flags.MaxListedUsers,

	"feedback.MaxMessage": feedback.MaxMessage,

	"idempotency.MaxKeyLength": idempotency.MaxKeyLength,

	"images.MaxPerUpload":   images.MaxPerUpload,
	"images.MaxGroupUpdate": images.MaxGroupUpdate,

	"memories.MaxTitle":       memories.MaxTitle,
	"memories.MaxDescription": memories.MaxDescription,
	"memories.MaxImages":      memories.MaxImages,
	"memories.MaxImageURL":    memories.MaxImageURL,

	"messages.MaxBody": messages.MaxBody,

	"moods.MaxNote": moods.MaxNote,

	"notifications.MaxTitle":   notifications.MaxTitle,
	"notifications.MaxMessage": notifications.MaxMessage,
	"notifications.MaxToken":   notifications.MaxToken,

	"premium.MaxPlan":      premium.MaxPlan,
	"premium.MaxBillingID": premium.MaxBillingID,
	"premium.MaxProductID": premium.MaxProductID,
	"premium.MaxProof":     premium.MaxProof,

	"questions.MaxText":     questions.MaxText,
	"questions.MaxReaction": questions.MaxReaction,
	"questions.MaxHistory":  questions.MaxHistory,

	"relationship.MaxMilestones": relationship.MaxMilestones,

	"versions.MaxUpdateMessage": versions.MaxUpdateMessage,
	"versions.MaxReleaseNotes":  versions.MaxReleaseNotes,
	"versions.MaxDownloadURL":   versions.MaxDownloadURL,
	"versions.MaxUserID":        versions.MaxUserID,
	"versions.MaxDeviceField":   versions.MaxDeviceField,
	"versions.MaxBuildNumber":   versions.MaxBuildNumber,
}

// docPatterns are the module rules an OpenAPI part may name as its
// "pattern" (ECMA-262): each is exactly its rule, or the closest outer
// bound where the part's prose says so, tested beside the rule.
var docPatterns = map[string]string{
	"core.TrimmedLinePattern":         core.TrimmedLinePattern,
	"core.TrimmedLineRequiredPattern": core.TrimmedLineRequiredPattern,
	"core.TrimmedTextPattern":         core.TrimmedTextPattern,
	"core.TrimmedTextRequiredPattern": core.TrimmedTextRequiredPattern,
	"core.NotBlankPattern":            core.NotBlankPattern,
	"core.VersionPattern":             core.VersionPattern,
	"core.LocalePattern":              core.LocalePattern,
	"core.CursorPattern":              core.CursorPattern,

	"accounts.TimezonePattern":    accounts.TimezonePattern,
	"events.DatePattern":          events.DatePattern,
	"events.WallTimePattern":      events.WallTimePattern,
	"events.NotifyPattern":        events.NotifyPattern,
	"flags.KeyPattern":            flags.KeyPattern,
	"flags.StoredKeyPattern":      flags.StoredKeyPattern,
	"images.KeyPattern":           images.KeyPattern,
	"images.URLPattern":           images.URLPattern,
	"memories.DatePattern":        memories.DatePattern,
	"memories.ImagePattern":       memories.ImagePattern,
	"moods.DatePattern":           moods.DatePattern,
	"partners.PairingCodePattern": partners.PairingCodePattern,
	"notifications.TokenPattern":  notifications.TokenPattern,
	"expo.TokenPattern":           expo.TokenPattern, // the provider's form is its adapter's
	"versions.DownloadURLPattern": versions.DownloadURLPattern,
}

// patternName is the shape of a docPatterns name, which no pattern of the
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
				if p, named := docPatterns[name]; named {
					x[k] = p
				} else if patternName.MatchString(name) {
					return fmt.Errorf("%s/%s: %q is no pattern of adapters/httpapi/limits.go (docPatterns)", where, k, name)
				}
				continue
			}
			if name, ok := x[k].(string); ok && limitKeywords[k] {
				n, known := docLimits[name]
				if !known {
					return fmt.Errorf("%s/%s: %q is no limit of adapters/httpapi/limits.go (docLimits)", where, k, name)
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
