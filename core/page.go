package core

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
