// Package notifications holds a user's notification settings, their inbox of
// stored notifications, their push devices, and the dispatch rule that joins
// them: a notification is always saved, and pushed to the user's devices only
// when the setting its category maps to is on and pauseAll is off.
package notifications

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"tandem/core"
)

// Setting is one of the eight keys of the notification settings, spelled as
// the spec spells them (they are the JSON keys and the stored names).
type Setting string

const (
	PauseAll           Setting = "pauseAll"
	DailyReminders     Setting = "dailyReminders"
	MoodUpdates        Setting = "moodUpdates"
	HabitsReminder     Setting = "habitsReminder"
	EventsNotification Setting = "eventsNotification"
	GamesNotification  Setting = "gamesNotification"
	PartnerActivity    Setting = "partnerActivity"
	SystemUpdates      Setting = "systemUpdates"
)

// Kinds are the seven per-type settings, in the spec's order; PauseAll is the
// master toggle over them.
var Kinds = [...]Setting{DailyReminders, MoodUpdates, HabitsReminder, EventsNotification, GamesNotification,
	PartnerActivity, SystemUpdates}

// ParseSetting accepts the eight keys exactly (case-sensitive, like JSON).
func ParseSetting(s string) (Setting, error) {
	if Setting(s) == PauseAll {
		return PauseAll, nil
	}
	for _, k := range Kinds {
		if Setting(s) == k {
			return k, nil
		}
	}
	return "", core.Invalid("invalid_request", "unknown setting "+strconv.Quote(s)+
		": use pauseAll, dailyReminders, moodUpdates, habitsReminder, eventsNotification, gamesNotification, partnerActivity, systemUpdates or dailyReminderTime")
}

// Preferences are the seven per-type settings.
type Preferences struct {
	DailyReminders     bool
	MoodUpdates        bool
	HabitsReminder     bool
	EventsNotification bool
	GamesNotification  bool
	PartnerActivity    bool
	SystemUpdates      bool
}

// AllOn is every type switched on (the defaults).
func AllOn() Preferences {
	var p Preferences
	for _, k := range Kinds {
		p.Set(k, true)
	}
	return p
}

// Get is the value of one per-type setting (false for PauseAll or an unknown key).
func (p Preferences) Get(k Setting) bool {
	switch k {
	case DailyReminders:
		return p.DailyReminders
	case MoodUpdates:
		return p.MoodUpdates
	case HabitsReminder:
		return p.HabitsReminder
	case EventsNotification:
		return p.EventsNotification
	case GamesNotification:
		return p.GamesNotification
	case PartnerActivity:
		return p.PartnerActivity
	case SystemUpdates:
		return p.SystemUpdates
	}
	return false
}

// Set changes one per-type setting; PauseAll and unknown keys are ignored.
func (p *Preferences) Set(k Setting, on bool) {
	switch k {
	case DailyReminders:
		p.DailyReminders = on
	case MoodUpdates:
		p.MoodUpdates = on
	case HabitsReminder:
		p.HabitsReminder = on
	case EventsNotification:
		p.EventsNotification = on
	case GamesNotification:
		p.GamesNotification = on
	case PartnerActivity:
		p.PartnerActivity = on
	case SystemUpdates:
		p.SystemUpdates = on
	}
}

// On lists the per-type settings that are on, in the spec's order.
func (p Preferences) On() []Setting {
	var out []Setting
	for _, k := range Kinds {
		if p.Get(k) {
			out = append(out, k)
		}
	}
	return out
}

// Settings are a user's notification settings as stored. While PauseAll is
// true every per-type setting is stored false (the spec: pauseAll turns all
// other settings off), and Resume keeps what they were, so that turning the
// pause off brings the user's own choices back instead of leaving everything
// off. Resume is all false while not paused. ReminderTime is when, in the
// user's own timezone, the daily reminder comes (an addition to the spec's
// eight keys: dailyReminderTime); pauseAll leaves it as it is.
type Settings struct {
	UserID   string
	PauseAll bool
	Preferences
	Resume       Preferences
	ReminderTime core.TimeOfDay
	UpdatedAt    time.Time
}

// DefaultReminderTime is the daily reminder's time of a user who never set one.
var DefaultReminderTime = core.TimeOfDay{Hour: 20}

// DefaultSettings are the settings of a user who never set any: pauseAll
// false, every type on, the daily reminder at 20:00.
func DefaultSettings(userID string) Settings {
	return Settings{UserID: userID, Preferences: AllOn(), ReminderTime: DefaultReminderTime}
}

// ReminderTimeKey is the settings key of the daily reminder's time, beside
// the eight boolean keys.
const ReminderTimeKey = "dailyReminderTime"

// ParseReminderTime accepts a time of day "HH:MM", 00:00 to 23:59.
func ParseReminderTime(s string) (core.TimeOfDay, error) {
	t, err := core.ParseTimeOfDay(s)
	if err != nil {
		return core.TimeOfDay{}, core.Invalid("invalid_request", ReminderTimeKey+` must be a time "HH:MM" from 00:00 to 23:59`)
	}
	return t, nil
}

// Changes is one settings update: the boolean keys present (Switches, by
// the rules of Settings.Apply) and, when not nil, a new daily reminder time.
type Changes struct {
	Switches     Patch
	ReminderTime *core.TimeOfDay
}

// Value is the value of any of the eight keys.
func (s Settings) Value(k Setting) bool {
	if k == PauseAll {
		return s.PauseAll
	}
	return s.Preferences.Get(k)
}

// Allows reports whether a notification of category c may be pushed: its
// setting is on and pauseAll is off.
func (s Settings) Allows(c Category) bool { return !s.PauseAll && s.Get(c.Setting()) }

// Patch is a partial update: the keys present and their new values.
type Patch map[Setting]bool

// Apply returns s changed by p, by these rules:
//   - the per-type keys of p change the user's choices: the stored ones, or
//     while paused the remembered ones (Resume);
//   - pauseAll true pauses: the choices are remembered and every per-type
//     setting is stored off, whatever else p says;
//   - pauseAll false, or turning any type on while paused, ends the pause:
//     the remembered choices come back, with p's keys applied on top;
//   - turning a type off while paused keeps the pause (and remembers it off).
func (s Settings) Apply(p Patch) Settings {
	choices := s.Preferences
	if s.PauseAll {
		choices = s.Resume
	}
	turnsOn := false
	for _, k := range Kinds {
		if on, ok := p[k]; ok {
			choices.Set(k, on)
			turnsOn = turnsOn || on
		}
	}
	paused := s.PauseAll && !turnsOn
	if v, ok := p[PauseAll]; ok {
		paused = v
	}
	out := s
	out.PauseAll = paused
	if paused {
		out.Preferences, out.Resume = Preferences{}, choices
	} else {
		out.Preferences, out.Resume = choices, Preferences{}
	}
	return out
}

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
		return "", core.Invalid("invalid_request", "category is required")
	}
	if _, ok := categorySettings[c]; !ok {
		return "", core.Invalid("invalid_request", "unknown category "+strconv.Quote(s)+
			": use mood, moodUpdates, habits, habitsReminder, events, eventsNotification, games, gamesNotification, questions, dailyReminders, notes, partnerActivity or systemUpdates")
	}
	return c, nil
}

// Setting is the setting c maps to ("" for an unparsed, unknown category).
func (c Category) Setting() Setting { return categorySettings[c] }

// Notification is one stored notification of a user's inbox.
type Notification struct {
	ID        string
	UserID    string
	Title     string
	Message   string
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
		return core.Invalid("invalid_request", "title is required")
	case utf8.RuneCountInString(title) > MaxTitle:
		return core.Invalid("invalid_request", "title must be at most 200 characters")
	case strings.TrimSpace(message) == "":
		return core.Invalid("invalid_request", "message is required")
	case utf8.RuneCountInString(message) > MaxMessage:
		return core.Invalid("invalid_request", "message must be at most 2000 characters")
	}
	if err := core.CheckText("title", title, false); err != nil {
		return err
	}
	return core.CheckText("message", message, true)
}

// ActivityKind is something a user does that their partner hears of (in
// the kind's Category: partnerActivity, or mood for a mood check-in).
// Repeats of one kind from one user are coalesced: one unread inbox entry
// that counts them, and at most one push per PushEvery (see
// Service.NotifyActivity).
type ActivityKind string

// The kinds of partner activity. Their entries never name what the partner
// wrote (a memory is private to its author; a message or an event is read
// in the app, not on a lock screen).
const (
	// ActivityMemoryAdded: the partner added a memory.
	ActivityMemoryAdded ActivityKind = "memoryAdded"
	// ActivityMessageSent: the partner sent a message to the couple's thread.
	ActivityMessageSent ActivityKind = "messageSent"
	// ActivityEventAdded: the partner added a calendar event (the reader
	// may read it: a partner's events are readable).
	ActivityEventAdded ActivityKind = "eventAdded"
	// ActivityEventChanged: the partner changed one of their calendar events.
	ActivityEventChanged ActivityKind = "eventChanged"
	// ActivityRelationshipStarted: the partner started the couple's
	// relationship (its duration counts from then on).
	ActivityRelationshipStarted ActivityKind = "relationshipStarted"
	// ActivityMoodShared: the partner checked in their mood of the day, or
	// changed it (category mood). The entry does not say which mood: a
	// lock screen is not where a note on how one feels belongs; the app
	// shows it.
	ActivityMoodShared ActivityKind = "moodShared"
)

// ActivityKinds are every kind of partner activity.
var ActivityKinds = []ActivityKind{ActivityMemoryAdded, ActivityMessageSent, ActivityEventAdded, ActivityEventChanged,
	ActivityRelationshipStarted, ActivityMoodShared}

// Category is the category of k's entries, which decides the setting that
// lets them be pushed: mood (moodUpdates) for a mood check-in, so that a user
// may mute their partner's moods and still hear of the rest; partnerActivity
// for everything else.
func (k ActivityKind) Category() Category {
	if k == ActivityMoodShared {
		return CategoryMood
	}
	return CategoryPartnerActivity
}

// PushEvery is the least time between two pushes of one kind of activity
// from one user to another.
const PushEvery = 10 * time.Minute

// ParseActivityKind accepts the kinds above.
func ParseActivityKind(s string) (ActivityKind, error) {
	for _, k := range ActivityKinds {
		if ActivityKind(s) == k {
			return k, nil
		}
	}
	return "", core.Invalid("invalid_request", "unknown activity "+strconv.Quote(s))
}

// activityText is a kind's entry: its title and message for one
// occurrence, and for n of them (%d in messageN is n).
type activityText struct{ title, message, titleN, messageN string }

var activityTexts = map[ActivityKind]activityText{
	ActivityMemoryAdded: {"New memory", "Your partner added a memory.",
		"New memories", "Your partner added %d memories."},
	ActivityMessageSent: {"New message", "Your partner sent you a message.",
		"New messages", "Your partner sent you %d messages."},
	ActivityEventAdded: {"New event", "Your partner added an event to the calendar.",
		"New events", "Your partner added %d events to the calendar."},
	ActivityEventChanged: {"Event changed", "Your partner changed an event in the calendar.",
		"Events changed", "Your partner changed %d events in the calendar."},
	ActivityRelationshipStarted: {"Relationship started", "Your partner started counting your days together.",
		"Relationship started", "Your partner started counting your days together."},
	ActivityMoodShared: {"Mood check-in", "Your partner shared how they feel today.",
		"Mood check-ins", "Your partner shared how they feel %d times."},
}

// Text is the title and message of the entry that counts n activities of k.
func (k ActivityKind) Text(n int) (title, message string) {
	t, ok := activityTexts[k]
	switch {
	case !ok:
		return "Partner activity", "Your partner has been active."
	case n <= 1:
		return t.title, t.message
	}
	return t.titleN, strings.Replace(t.messageN, "%d", strconv.Itoa(n), 1)
}

// Activity is one occurrence: From did Kind, and UserID hears of it.
type Activity struct {
	UserID string
	From   string
	Kind   ActivityKind
}

// Platform is where the app runs, one for every module.
type Platform = core.Platform

// Provider is the push service that delivers to a device's token.
type Provider string

const (
	ProviderExpo Provider = "expo"
	ProviderFCM  Provider = "fcm"
)

// ParseProvider accepts expo and fcm.
func ParseProvider(s string) (Provider, error) {
	switch p := Provider(s); p {
	case ProviderExpo, ProviderFCM:
		return p, nil
	case "":
		return "", core.Invalid("invalid_request", "provider is required: expo or fcm")
	}
	return "", core.Invalid("invalid_request", "provider must be expo or fcm")
}

// MaxToken bounds a push token (FCM tokens are about 160 characters, Expo's 40).
const MaxToken = 1024

// ValidateToken checks a push token: printable ASCII without spaces, at most
// MaxToken long; an Expo token has Expo's own form, ExponentPushToken[...] or
// ExpoPushToken[...], which is all Expo's API accepts.
func ValidateToken(p Provider, token string) error {
	if token == "" {
		return core.Invalid("invalid_request", "token is required")
	}
	if len(token) > MaxToken {
		return core.Invalid("invalid_request", "token must be at most 1024 characters")
	}
	for i := 0; i < len(token); i++ {
		if token[i] <= ' ' || token[i] > '~' {
			return core.Invalid("invalid_request", "token must be printable ASCII without spaces")
		}
	}
	if p == ProviderExpo && !isExpoToken(token) {
		return core.Invalid("invalid_request", "an expo token looks like ExponentPushToken[...]")
	}
	return nil
}

func isExpoToken(t string) bool {
	for _, prefix := range []string{"ExponentPushToken[", "ExpoPushToken["} {
		if strings.HasPrefix(t, prefix) && strings.HasSuffix(t, "]") && len(t) > len(prefix)+1 {
			return true
		}
	}
	return false
}

// Device is a registered push target. A token belongs to one device, and so
// to one user: another user registering it takes it as a new device.
type Device struct {
	ID        string
	UserID    string
	Token     string
	Platform  Platform
	Provider  Provider
	CreatedAt time.Time
	UpdatedAt time.Time // the last registration
}

// MaxDevices is how many devices a user keeps: registering one more forgets
// the least recently registered (reinstalls make new tokens, and a token no
// provider has reported dead yet would otherwise be pushed to forever).
const MaxDevices = 10

// Registration is a device registration request.
type Registration struct {
	Token    string
	Platform string
	Provider string
}

// Message is what a push carries.
type Message struct {
	NotificationID string
	Title          string
	Body           string
	Category       Category
}

// Outcome is what became of one device's push.
type Outcome uint8

const (
	// OutcomeFailed: not accepted (the provider is unreachable, refused the
	// message, or is not configured); the device is kept.
	OutcomeFailed Outcome = iota
	// OutcomeDelivered: accepted by the provider (or by the log/memory sender).
	OutcomeDelivered
	// OutcomeDeadToken: the provider says the token will never work again;
	// the device is removed.
	OutcomeDeadToken
)

// Delivery is the outcome of one device's push; Err says why it failed, for
// the log. Ticket is the provider's id of an accepted push whose delivery it
// reports later (an Expo ticket; see Receipts), "" when there is none.
type Delivery struct {
	Outcome Outcome
	Err     error
	Ticket  string
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

func errNotificationNotFound() error { return core.NotFound("not_found", "notification not found") }

func errDeviceNotFound() error { return core.NotFound("not_found", "device not found") }
