package httpapi

import (
	"fmt"

	"tandem/core"
	"tandem/modules/events"
	"tandem/modules/memories"
	"tandem/modules/messages"
	"tandem/modules/moods"
	"tandem/modules/notifications"
	"tandem/modules/partners"
	"tandem/modules/questions"
	"tandem/modules/relationship"
)

// deletedJSON is the record of a *.deleted live event: the id of what is
// gone. Field names are the app's contract: do not rename.
type deletedJSON struct {
	ID string `json:"id"`
}

// renderLive renders one reader's record of a core.Live event as exactly
// what that reader's REST read returns, with the same mapper, so the stream
// never drifts from the API. A module that publishes a new record type adds
// its case here; an unknown type is an internal error, never a raw value.
func renderLive(rec any) (any, error) {
	switch r := rec.(type) {
	case messages.Message: // an item of GET /api/messages/list
		return toMessageJSON(r), nil
	case questions.View: // GET .../daily-question without success (streak included)
		return toDailyQuestionToday(r), nil
	case memories.Memory: // GET .../memories/{memoryId}
		return toMemoryJSON(r), nil
	case moods.Mood: // an item of GET .../moods
		return toMoodJSON(r), nil
	case events.Read: // GET .../events/{eventId}, isPartnerEvent included
		return toEventReadJSON(r), nil
	case partners.Status: // GET .../pairing
		return toPairingStatusJSON(r), nil
	case partners.Ended:
		return partnershipEndedJSON{PartnerID: r.PartnerID}, nil
	case relationship.Duration: // GET /api/user/{userId}/relationship
		return toDurationJSON(r), nil
	case notifications.Notification: // an item of GET .../notifications
		return toNotificationJSON(r), nil
	case core.Deleted:
		return deletedJSON{ID: r.ID}, nil
	}
	return nil, core.Internal(fmt.Errorf("live: no renderer for %T", rec))
}
