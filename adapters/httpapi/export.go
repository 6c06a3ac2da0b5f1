package httpapi

import (
	"fmt"

	"tandem/core"
	"tandem/modules/advice"
	"tandem/modules/events"
	"tandem/modules/feedback"
	"tandem/modules/flags"
	"tandem/modules/images"
	"tandem/modules/memories"
	"tandem/modules/messages"
	"tandem/modules/moods"
	"tandem/modules/notifications"
	"tandem/modules/partners"
	"tandem/modules/passkeys"
	"tandem/modules/premium"
	"tandem/modules/questions"
	"tandem/modules/relationship"
)

// toExportJSON renders every section of an account export. Modules export
// their own typed records; each is rendered by the mappers of its handler
// file, so an export never drifts from what the API shows.
func toExportJSON(data map[string]any) (map[string]any, error) {
	out := make(map[string]any, len(data))
	for section, v := range data {
		js, ok := toSectionJSON(v)
		if !ok {
			return nil, core.Internal(fmt.Errorf("export %s: no renderer for %T", section, v))
		}
		out[section] = js
	}
	return out, nil
}

// toSectionJSON picks the mapper by the section's type; a new
// core.UserData owner adds its case here.
func toSectionJSON(v any) (any, bool) {
	switch v := v.(type) {
	case []advice.Daily:
		return toAdviceExportJSON(v), true
	case []events.Event:
		return toEventsJSON(v), true
	case []feedback.Feedback:
		return toFeedbackJSON(v), true
	case flags.ExportedListings:
		return toFlagListingsExportJSON(v), true
	case []images.Image:
		return toImagesJSON(v), true
	case []memories.Memory:
		return toMemoriesJSON(v), true
	case []messages.ExportedMessage:
		return toMessagesExportJSON(v), true
	case []moods.Mood:
		return toMoodsJSON(v), true
	case notifications.Export:
		return toNotificationsExportJSON(v), true
	case []passkeys.Passkey:
		return toPasskeysJSON(v), true
	case partners.Export:
		return toPartnersExportJSON(v), true
	case *premium.Subscription:
		return toSubscriptionExportJSON(v), true
	case []questions.Entry:
		return toQuestionsExportJSON(v), true
	case []relationship.ExportedRelationship:
		return toRelationshipsExportJSON(v), true
	}
	return nil, false
}
