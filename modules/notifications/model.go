// Package notifications holds a user's notification settings, their inbox of
// stored notifications, their push devices, and the dispatch rule that joins
// them: a notification is always saved, and pushed to the user's devices only
// when the setting its category maps to is on and pauseAll is off.
package notifications

import (
	"strings"
	"time"
	"unicode/utf8"

	"tandem/core"
)

// Category is what a notification is about; it maps to the setting that
// decides whether it is pushed.
type Category string

// categorySettings is the spec's category → setting mapping table.
var categorySettings = map[Category]Setting{
	"mood": MoodUpdates, "moodUpdates": MoodUpdates,
	"habits": HabitsReminder, "habitsReminder": HabitsReminder,
	"events": EventsNotification, "eventsNotification": EventsNotification,
	"games": GamesNotification, "gamesNotification": GamesNotification,
	"questions": DailyReminders, "dailyReminders": DailyReminders,
	"notes": PartnerActivity, "partnerActivity": PartnerActivity,
	"systemUpdates": SystemUpdates,
}

// The categories other modules send.
const (
	CategoryQuestions       Category = "questions"
	CategoryEvents          Category = "events"
	CategoryPartnerActivity Category = "partnerActivity"
	CategoryMood            Category = "mood"
)

// ParseCategory accepts the thirteen categories of the spec exactly.
func ParseCategory(s string) (Category, error) {
	c := Category(s)
	if s == "" {
		return "", core.Required("category")
	}
	if _, ok := categorySettings[c]; !ok {
		return "", core.Invalid("invalid_request", "notifications.unknownCategoryUseMoodMoodUpdates", "unknown category %q"+
			": use mood, moodUpdates, habits, habitsReminder, events, eventsNotification, games, gamesNotification, questions, dailyReminders, notes, partnerActivity or systemUpdates", s)
	}
	return c, nil
}

// Setting is the setting c maps to ("" for an unparsed, unknown category).
func (c Category) Setting() Setting { return categorySettings[c] }

// Notification is one stored notification of a user's inbox.
type Notification struct {
	ID      string
	UserID  string
	Title   string
	Message string
	// Text names Title and Message in the catalogs (Text.Key+".title" and
	// ".body", filled with Text.Args), so that each reading writes them in
	// the reader's locale of the moment; Title and Message hold the English.
	// A zero Text: Title and Message are as written (an administrator's).
	Text      core.Message
	Category  Category
	Read      bool
	CreatedAt time.Time
}

const (
	MaxTitle   = 200  // characters
	MaxMessage = 2000 // characters
)

// validateContent checks a notification's title and message.
func validateContent(title, message string) error {
	switch {
	case strings.TrimSpace(title) == "":
		return core.Required("title")
	case utf8.RuneCountInString(title) > MaxTitle:
		return core.TooLong("title", MaxTitle)
	case strings.TrimSpace(message) == "":
		return core.Required("message")
	case utf8.RuneCountInString(message) > MaxMessage:
		return core.TooLong("message", MaxMessage)
	}
	if err := core.CheckText("title", title, false); err != nil {
		return err
	}
	return core.CheckText("message", message, true)
}

// Action is the spec's action of a send result.
type Action string

const (
	ActionSavedAndSent Action = "saved_and_sent"
	ActionSavedOnly    Action = "saved_only"
)

// Result is what a Notify did: the notification is always saved; Sent counts
// the deliveries accepted out of Total, the user's devices.
type Result struct {
	Notification Notification
	// OptedIn: the category's setting is on and pauseAll is off, so a push
	// was attempted on every device.
	OptedIn bool
	Setting Setting // the setting the category maps to
	Paused  bool    // pauseAll was on
	Sent    int
	Total   int
	Removed int // devices removed because their provider reported the token dead
}

// Action is saved_and_sent when at least one device accepted the push, else
// saved_only (opted out, no device, or every delivery failed).
func (r Result) Action() Action {
	if r.Sent > 0 {
		return ActionSavedAndSent
	}
	return ActionSavedOnly
}

func errNotificationNotFound() error {
	return core.NotFound("not_found", "notifications.notificationNotFound", "notification not found")
}

func errDeviceNotFound() error {
	return core.NotFound("not_found", "notifications.deviceNotFound", "device not found")
}
