// Package feedback holds the users' feedback messages: written by a user,
// read back by that user (their history) and by administrators (all of it).
package feedback

import (
	"strings"
	"time"
	"unicode/utf8"

	"tandem/core"
)

// Feedback is one message a user sent about the app.
type Feedback struct {
	ID        string
	UserID    string
	Message   string
	CreatedAt time.Time
	// HandledAt and HandledBy (an administrator's e-mail) are set once an
	// administrator marks the message handled; zero until then.
	HandledAt time.Time
	HandledBy string
}

// Handled reports whether an administrator has dealt with the message.
func (f Feedback) Handled() bool { return !f.HandledAt.IsZero() }

// State filters the administrators' list.
type State string

const (
	StateAll     State = ""
	StateOpen    State = "open"
	StateHandled State = "handled"
)

// ParseState reads a list filter: "", "all", "open" or "handled".
func ParseState(s string) (State, error) {
	switch State(s) {
	case StateAll, "all":
		return StateAll, nil
	case StateOpen, StateHandled:
		return State(s), nil
	}
	return "", core.Invalid("invalid_request", "feedback.stateAllOpenHandled", "state must be all, open or handled")
}

const MaxMessage = 5000 // characters of one feedback message

// SubmitRate bounds the feedback one user may send, against spam: the
// counter lives in the shared store (core.Limiter), so it holds across
// processes.
var SubmitRate = core.RateRule{Name: "feedback_user", Limit: 20, Window: time.Hour}

// normalizeMessage trims msg and checks it is 1 to MaxMessage characters.
func normalizeMessage(msg string) (string, error) {
	msg = strings.TrimSpace(msg)
	if msg == "" {
		return "", core.Required("feedbackMessage")
	}
	if utf8.RuneCountInString(msg) > MaxMessage {
		return "", core.TooLong("feedbackMessage", MaxMessage)
	}
	return msg, core.CheckText("feedbackMessage", msg, true)
}
