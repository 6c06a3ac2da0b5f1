package core

import (
	"encoding/base64"
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

// EncodeCursor makes an opaque cursor from the sort key of the last item
// returned (e.g. its created-at and id); DecodeCursor reverses it.
func EncodeCursor(parts ...string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strings.Join(parts, "\x1f")))
}

// DecodeCursor returns the parts of a cursor made by EncodeCursor; a cursor
// that was not is a 400.
func DecodeCursor(cursor string, n int) ([]string, error) {
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	parts := strings.Split(string(b), "\x1f")
	if err != nil || len(parts) != n {
		return nil, Invalid("invalid_request", "cursor is not one this server handed out")
	}
	return parts, nil
}
