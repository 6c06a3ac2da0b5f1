package notifications

import (
	"time"

	"tandem/core"
)

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
	return "", core.Invalid("invalid_request", "notifications.unknownActivity", "unknown activity %q", s)
}

// Text is the text of the entry that counts n activities of k: the
// catalogs' "activity.<kind>", its count the argument (plural forms say
// "a message" or "3 messages").
func (k ActivityKind) Text(n int) core.Message {
	if _, err := ParseActivityKind(string(k)); err != nil {
		return core.Msg("activity.other")
	}
	return core.Msg("activity."+string(k), n)
}

// Activity is one occurrence: From did Kind, and UserID hears of it.
type Activity struct {
	UserID string
	From   string
	Kind   ActivityKind
}

// Collected is what the inbox holds for one (UserID, From, Kind): the
// repository loads it, locked, inside the transaction that stores one more
// activity (Repository.AddActivity).
type Collected struct {
	// Entry is the unread notification that collects the activities; nil
	// when there is none (never one, or it was read or deleted since).
	Entry *Notification
	// Count is how many activities Entry collects.
	Count int
	// PushedAt is when the last push for the three was reserved; zero:
	// never.
	PushedAt time.Time
}

// Collect is the rule of one more activity a, arriving as n (its id and
// time): the unread entry counts one more, takes the text of its new count
// and n's time, and keeps its id; without one, n becomes the entry, with a
// count of 1. One push is due when none was reserved in the quiet period
// before n (push reports it; the push is then reserved at n's time).
func Collect(c Collected, a Activity, n Notification, quiet time.Duration) (next Collected, push bool) {
	entry := n
	if c.Entry != nil {
		entry, entry.CreatedAt = *c.Entry, n.CreatedAt
	} else {
		entry.UserID, c.Count = a.UserID, 0
	}
	next = Collected{Entry: &entry, Count: c.Count + 1, PushedAt: c.PushedAt}
	entry.Text = a.Kind.Text(next.Count)
	push = c.PushedAt.IsZero() || !n.CreatedAt.Before(c.PushedAt.Add(quiet))
	if push {
		next.PushedAt = n.CreatedAt
	}
	return next, push
}
