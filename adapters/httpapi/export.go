package httpapi

import (
	"tandem/modules/advice"
	"tandem/modules/events"
	"tandem/modules/feedback"
	"tandem/modules/images"
	"tandem/modules/memories"
	"tandem/modules/messages"
	"tandem/modules/premium"
	"tandem/modules/questions"
	"tandem/modules/relationship"
)

// toExportJSON renders every section of an account export. Modules export
// their own typed records; each is rendered by the reply mappers of its
// handler file, so an export never drifts from what the API shows.
func toExportJSON(data map[string]any) (map[string]any, error) {
	out := make(map[string]any, len(data))
	for section, v := range data {
		out[section] = toSectionJSON(v)
	}
	return out, nil
}

// toSectionJSON picks the mapper by the section's type.
func toSectionJSON(v any) any {
	switch v := v.(type) {
	case []events.Event:
		return toEventsJSON(v)
	case []memories.Memory:
		return toMemoriesJSON(v)
	case []messages.ExportedMessage:
		return toMessagesExportJSON(v)
	case []questions.Entry:
		return toQuestionsExportJSON(v)
	case []advice.Daily:
		return toAdviceExportJSON(v)
	case []feedback.Feedback:
		return toFeedbackJSON(v)
	case []images.Image:
		return toImagesJSON(v)
	case []relationship.ExportedRelationship:
		return toRelationshipsExportJSON(v)
	case *premium.Subscription:
		return toSubscriptionExportJSON(v)
	}
	return v // not yet typed: already JSON-ready
}
