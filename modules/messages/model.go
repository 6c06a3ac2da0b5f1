// Package messages holds the couple's shared message list: every message
// belongs to the thread of the partnership it was sent in (the sender's own
// thread while unpaired), so a new partner never sees an earlier couple's
// messages.
package messages

import (
	"cmp"
	"strings"
	"time"
	"unicode/utf8"

	"tandem/core"
)

// MaxBody bounds a message, in characters after trimming.
const MaxBody = 4000

// SendsPerMinute and SendsPerDay are one user's write budget of messages: a
// chat's bursts pass, a script is stopped within its first minute, and the
// day's cap bounds what one account stores (1,000 messages of MaxBody).
const (
	SendsPerMinute = 30
	SendsPerDay    = 1000
)

// DefaultBudget is the write budget of Send unless Settings name another
// (TANDEM_WRITE_BUDGETS).
var DefaultBudget = core.WriteBudget{Kind: "messages", PerMinute: SendsPerMinute, PerDay: SendsPerDay}

// Settings are the module's configuration (bound in bootstrap).
type Settings struct {
	// Budget bounds the messages one user sends; zero: DefaultBudget.
	Budget core.WriteBudget
}

// Message is one message of a thread.
type Message struct {
	ID        string
	Scope     string // the thread: a partnership id, or SoloScope(author) while unpaired
	AuthorID  string
	Body      string
	CreatedAt time.Time
}

// soloPrefix marks the thread of a user without a partner; partnership ids
// (UUIDs) never contain a colon, so the two kinds of scope cannot meet.
const soloPrefix = "user:"

// SoloScope is the thread of userID while unpaired.
func SoloScope(userID string) string { return soloPrefix + userID }

// ScopeOf is the thread a user reads and writes: the partnership's while
// paired, else the user's own.
func ScopeOf(userID, partnershipID string) string {
	if partnershipID != "" {
		return partnershipID
	}
	return SoloScope(userID)
}

// NormalizeBody trims a message body and checks it: required (not blank)
// and at most MaxBody characters.
func NormalizeBody(body string) (string, error) {
	body = strings.TrimSpace(body)
	switch {
	case body == "":
		return "", core.Required("body")
	case utf8.RuneCountInString(body) > MaxBody:
		return "", core.TooLong("body", MaxBody)
	}
	return body, core.CheckText("body", body, true)
}

// Cursor is a position in the list order of a thread (newest first: by
// CreatedAt, then id, descending): a page continues after it.
type Cursor struct {
	CreatedAt int64 // milliseconds
	ID        string
}

// CursorAfter is the cursor that continues after m.
func CursorAfter(m Message) Cursor { return Cursor{CreatedAt: core.Millis(m.CreatedAt), ID: m.ID} }

// TimeCursor is c as a core.TimeCursor, the form the SQL store pages by.
func (c Cursor) TimeCursor() core.TimeCursor { return core.TimeCursor{At: c.CreatedAt, ID: c.ID} }

// String is the opaque form handed to clients: the TimeCursor's.
func (c Cursor) String() string { return c.TimeCursor().String() }

// ParseCursor reverses Cursor.String; anything else is a 400.
func ParseCursor(s string) (Cursor, error) {
	c, err := core.ParseTimeCursor(s)
	return Cursor{CreatedAt: c.At, ID: c.ID}, err
}

// ListOrder compares messages in list order: the latest first, then the
// greater id.
func ListOrder(a, b Message) int {
	if c := cmp.Compare(core.Millis(b.CreatedAt), core.Millis(a.CreatedAt)); c != 0 {
		return c
	}
	return strings.Compare(b.ID, a.ID)
}

// After reports whether m comes after c in list order.
func (c Cursor) After(m Message) bool {
	return ListOrder(m, Message{CreatedAt: core.FromMillis(c.CreatedAt), ID: c.ID}) > 0
}

// PageOf cuts ms, read in list order with one more than page.Size() asked
// for, to the page, and returns the next cursor when the caller pages and
// more follow. Repositories share it so every store pages alike.
func PageOf(ms []Message, page core.Page) ([]Message, string) {
	return core.CutPage(ms, page, func(m Message) string { return CursorAfter(m).String() })
}
