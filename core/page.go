package core

import (
	"encoding/base64"
	"strconv"
	"strings"
)

// Page asks for one page of a list. Limit 0 means "everything up to MaxListItems".
type Page struct {
	Limit  int
	Cursor string
}

const (
	DefaultPageLimit = 100
	MaxPageLimit     = 500
	MaxListItems     = 1000 // hard cap of an unpaged list
)

// Size is how many items to fetch: the limit, or the hard cap without one.
func (p Page) Size() int {
	if p.Limit <= 0 {
		return MaxListItems
	}
	if p.Limit > MaxPageLimit {
		return MaxPageLimit
	}
	return p.Limit
}

// Paged reports whether the caller asked for pages (and so gets a next cursor).
func (p Page) Paged() bool { return p.Limit > 0 }

// CursorPattern is the closest outer bound of DecodeCursor the API document
// states: unpadded base64url. A cursor must also be one the server handed
// out; anything else is a 400.
const CursorPattern = `^[A-Za-z0-9_-]*$`

// EncodeCursor makes an opaque cursor from the sort key of the last item
// returned (e.g. its created-at and id); DecodeCursor reverses it.
func EncodeCursor(parts ...string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strings.Join(parts, "\x1f")))
}

// DecodeCursor returns the parts of a cursor made by EncodeCursor; a cursor
// that was not is a 400. Only the exact string EncodeCursor makes of its
// parts is taken (base64 also decodes other spellings of the same bytes:
// non-zero padding bits, line breaks), and every part is printable UTF-8,
// as the sort keys the server puts in a cursor are.
func DecodeCursor(cursor string, n int) ([]string, error) {
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	parts := strings.Split(string(b), "\x1f")
	if err != nil || len(parts) != n || EncodeCursor(parts...) != cursor {
		return nil, errForgedCursor()
	}
	for _, p := range parts {
		if CheckText("cursor", p, false) != nil {
			return nil, errForgedCursor()
		}
	}
	return parts, nil
}

func errForgedCursor() error {
	return Invalid("invalid_request", "core.cursorNotOneServerHanded", "cursor is not one this server handed out")
}

// EveryPage reads a list page by page to its end and converts each item: an
// export holds all of a user's items, however many, without one unbounded query.
func EveryPage[T, U any](list func(Page) ([]T, string, error), convert func(T) U) ([]U, error) {
	out := []U{}
	page := Page{Limit: MaxPageLimit}
	for {
		items, next, err := list(page)
		if err != nil {
			return nil, err
		}
		for _, item := range items {
			out = append(out, convert(item))
		}
		if next == "" {
			return out, nil
		}
		page.Cursor = next
	}
}

// TimeCursor is a position in a list kept newest first by creation time
// (milliseconds), then id: the keyset of the inbox-like lists.
type TimeCursor struct {
	At int64
	ID string
}

// String is the opaque form handed to clients.
func (c TimeCursor) String() string { return EncodeCursor(strconv.FormatInt(c.At, 10), c.ID) }

// ParseTimeCursor reverses TimeCursor.String; anything else is a 400.
func ParseTimeCursor(s string) (TimeCursor, error) {
	parts, err := DecodeCursor(s, 2)
	if err != nil {
		return TimeCursor{}, err
	}
	at, ok := ParseMillis(parts[0])
	if !ok || parts[1] == "" {
		return TimeCursor{}, errForgedCursor()
	}
	return TimeCursor{At: at, ID: parts[1]}, nil
}

// ParseMillis reads a cursor's millisecond part: only the decimal form
// strconv.FormatInt writes ("12", "-5"; never "+12" or "012"), so that a
// parsed cursor encodes back to the string it came from.
func ParseMillis(s string) (int64, bool) {
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && strconv.FormatInt(n, 10) == s
}

// CutPage cuts items, read in list order with one more than page.Size()
// asked for, to the page, and returns the cursor after its last item when
// the caller pages and more follow. Every store pages through it alike.
func CutPage[T any](items []T, page Page, cursorAfter func(T) string) ([]T, string) {
	if len(items) <= page.Size() {
		return items, ""
	}
	items = items[:page.Size()]
	if !page.Paged() {
		return items, ""
	}
	return items, cursorAfter(items[len(items)-1])
}
