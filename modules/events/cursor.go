// The list order of a user's events and the cursor that pages through it.

package events

import (
	"strings"

	"tandem/core"
)

// Cursor is a position in the by-date order of a user's events (start date,
// then id): a page continues after it.
type Cursor struct {
	StartDate core.Date
	ID        string
}

// CursorAfter is the cursor that continues after e.
func CursorAfter(e Event) Cursor { return Cursor{StartDate: e.StartDate, ID: e.ID} }

// String is the opaque form handed to clients.
func (c Cursor) String() string { return core.EncodeCursor(c.StartDate.String(), c.ID) }

// ParseCursor reverses Cursor.String; anything else is a 400.
func ParseCursor(s string) (Cursor, error) {
	parts, err := core.DecodeCursor(s, 2)
	if err != nil {
		return Cursor{}, err
	}
	d, err := core.ParseDate(parts[0])
	if err != nil || parts[1] == "" {
		return Cursor{}, core.Invalid("invalid_request", "core.cursorNotOneServerHanded", "cursor is not one this server handed out")
	}
	return Cursor{StartDate: d, ID: parts[1]}, nil
}

// PageOf cuts evs, read in list order with one more than page.Size() asked
// for, to the page, and returns the next cursor when the caller pages and
// more follow. Repositories share it so every store pages alike.
func PageOf(evs []Event, page core.Page) ([]Event, string) {
	return core.CutPage(evs, page, func(e Event) string { return CursorAfter(e).String() })
}

// ListOrder compares events in list order: start date, then id.
func ListOrder(a, b Event) int {
	if c := a.StartDate.Time().Compare(b.StartDate.Time()); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

// NextOrder is the order of what comes next: start date, then start time
// (an all-day event, with none, first), then id. Both stores compare the
// times as their "HH:mm" text, as this does.
func NextOrder(a, b Event) int {
	if c := a.StartDate.Time().Compare(b.StartDate.Time()); c != 0 {
		return c
	}
	if c := strings.Compare(a.StartTime.String(), b.StartTime.String()); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

// After reports whether e comes after c in list order.
func (c Cursor) After(e Event) bool {
	return ListOrder(e, Event{StartDate: c.StartDate, ID: c.ID}) > 0
}
