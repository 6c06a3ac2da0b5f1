package httpapi

import (
	"fmt"
	"sort"
	"strings"

	"tandem/core"
	"tandem/modules/events"
	"tandem/modules/feedback"
	"tandem/modules/idempotency"
	"tandem/modules/images"
	"tandem/modules/memories"
	"tandem/modules/messages"
	"tandem/modules/moods"
	"tandem/modules/notifications"
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
	"core.MaxLocale":    core.MaxLocale,

	"events.MaxTitle":         events.MaxTitle,
	"events.MaxDescription":   events.MaxDescription,
	"events.MaxLocation":      events.MaxLocation,
	"events.MaxParticipants":  events.MaxParticipants,
	"events.MaxParticipantID": events.MaxParticipantID,

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

// limitKeywords are the schema keywords whose value may name a docLimit.
var limitKeywords = map[string]bool{
	"maxLength": true, "minLength": true,
	"maxItems": true, "minItems": true,
	"maximum": true, "minimum": true,
}

// resolveLimits replaces every limit keyword of v whose value is a string
// with the docLimit it names; a name that is no docLimit is an error, where
// naming the part and the place.
func resolveLimits(v any, where string) error {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
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
