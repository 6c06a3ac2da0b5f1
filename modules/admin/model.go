// Package admin holds what the administrator console adds to the other
// contexts: the audit log of every change an administrator makes, and the
// overview counts. The changes themselves stay with their own modules.
package admin

import (
	"encoding/json"
	"strings"
	"time"

	"tandem/core"
)

// Outcome says how a recorded change ended. An entry is written before the
// change runs (pending) and completed after it, so that no change is ever
// made without its entry: a crash between the two leaves a pending entry,
// never an unrecorded change.
type Outcome string

const (
	OutcomePending Outcome = "pending"
	OutcomeDone    Outcome = "done"
	OutcomeFailed  Outcome = "failed"
)

// Entry is one change made in the console.
type Entry struct {
	ID      string
	ActorID string // the administrator's user id
	Actor   string // their e-mail at the time, kept: the account may go
	Action  string // e.g. "flag.create", "session.revoke"
	Target  string // what was changed, e.g. "flag:new_home"
	Before  string // JSON of the state before ("null" when none)
	After   string // JSON of the state after ("null" when none or failed)
	Outcome Outcome
	At      time.Time
}

// Change describes a change about to be made: what and on what, with the
// state before it.
type Change struct {
	Action string
	Target string
	Before any
}

// Account is what an administrator's change reads of an account.
type Account struct {
	ID       string
	Email    string
	Verified bool
	Granted  bool // the stored grant (tandem admin grant)
	Admin    bool // an administrator: granted, or listed in TANDEM_ADMIN_EMAILS
	// Configured: the address is listed in TANDEM_ADMIN_EMAILS, a grant
	// only the configuration gives and takes.
	Configured bool
	Blocked    bool
	CreatedAt  time.Time
}

// Session is one of a user's sessions; its token is never read.
type Session struct {
	ID        string
	UserAgent string
	CreatedAt time.Time
}

// Overview is what the console's first page counts.
type Overview struct {
	Users         int
	Couples       int
	ActivePremium int // direct subscriptions granting premium now
	UploadsToday  int // images stored since midnight UTC
}

// MaxField bounds the texts of an entry; before/after JSON longer than
// MaxState is cut (the log shows a change, it is no backup).
const (
	MaxField = 200
	MaxState = 16000
)

// toJSON renders a state for the log; nil is "null".
func toJSON(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", core.Internal(err)
	}
	return clip(string(b), MaxState), nil
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && !validTail(s) {
		s = s[:len(s)-1]
	}
	return s
}

// validTail reports whether s does not end inside a UTF-8 sequence.
func validTail(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }
