package notifications

import (
	"time"

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
	return "", core.Invalid("invalid_request", "notifications.unknownSettingUsePauseAllDailyReminders", "unknown setting %q"+
		": use pauseAll, dailyReminders, moodUpdates, habitsReminder, eventsNotification, gamesNotification, partnerActivity, systemUpdates or dailyReminderTime", s)
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
		return core.TimeOfDay{}, core.Invalid("invalid_request", "notifications.dailyReminderTimeTimeHHMM00", ReminderTimeKey+` must be a time "HH:MM" from 00:00 to 23:59`)
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
