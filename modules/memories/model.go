// Package memories holds each user's memories: a title, a description, the
// day it happened and the addresses of its images. Memories are private to
// their owner; the current partner only hears that one was added.
package memories

import (
	"cmp"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"tandem/core"
)

// The limits of a memory's fields.
const (
	MaxTitle       = 200  // characters
	MaxDescription = 5000 // characters
	MaxImages      = 20
	MaxImageURL    = 2048 // bytes of one image address
)

// CreatesPerMinute and CreatesPerDay are one user's write budget of new
// memories, besides the count their limits allow (403 limit_reached): an
// afternoon of adding old photos passes, a script is stopped within its
// first minute and the day's cap bounds what it stores and how often the
// partner hears of it.
const (
	CreatesPerMinute = 20
	CreatesPerDay    = 200
)

// DefaultBudget is the write budget of Create unless Settings name another
// (TANDEM_WRITE_BUDGETS).
var DefaultBudget = core.WriteBudget{Kind: "memories", PerMinute: CreatesPerMinute, PerDay: CreatesPerDay}

// DatePattern is the years of MinDate to MaxDate as the API document states
// them, beside its format date.
const DatePattern = `^(?:19|[2-9][0-9])[0-9]{2}-[0-9]{2}-[0-9]{2}$`

// MinDate and MaxDate bound every memory date and every date query (MaxDate is
// the end of a MySQL DATE; nothing older than MinDate is a couple's memory).
var (
	MinDate = core.Date{Year: 1900, Month: time.January, Day: 1}
	MaxDate = core.Date{Year: 9999, Month: time.December, Day: 31}
)

// Memory is one memory, owned by UserID.
type Memory struct {
	ID          string
	UserID      string
	Title       string
	Description string
	Date        core.Date
	Images      []string // image addresses, in the order given; never nil once validated
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Settings are the module's configuration (bound in bootstrap).
type Settings struct {
	// PublicURL is TANDEM_PUBLIC_URL without a trailing slash: every image
	// address must be one of the files this server hands out, under
	// PublicURL/files/.
	PublicURL string
	// Budget bounds the memories one user creates; zero: DefaultBudget.
	Budget core.WriteBudget
}

// FilesURL is the prefix every image address starts with.
func (s Settings) FilesURL() string { return s.PublicURL + "/files/" }

// stored is how images are kept: each address under FilesURL as its key,
// so that it moves with the deployment (a restore under another
// TANDEM_PUBLIC_URL serves it from there). Anything else (an address kept
// from before keys, that named no uploaded file) is kept as it is.
func (s Settings) stored(m Memory) Memory {
	m.Images = slices.Clone(m.Images)
	for i, a := range m.Images {
		if key, ok := strings.CutPrefix(a, s.FilesURL()); ok {
			m.Images[i] = key
		}
	}
	return m
}

// addressed reverses stored: a key (it holds no "://") becomes its address
// under this deployment's FilesURL; an address stays as it is.
func (s Settings) addressed(m Memory) Memory {
	m.Images = slices.Clone(m.Images)
	if m.Images == nil {
		m.Images = []string{}
	}
	for i, a := range m.Images {
		if !strings.Contains(a, "://") {
			m.Images[i] = s.FilesURL() + a
		}
	}
	return m
}

// Draft is a create request as sent; Create parses and checks it. title and
// date are required; description defaults to "" and images to none.
type Draft struct {
	Title       string
	Description string
	Date        string // YYYY-MM-DD
	Images      []string
}

// Patch is an update request; nil fields stay as they are. Only the title
// and the description may change: Date and Images are carried so that a
// request changing them is refused instead of silently ignored, while an app
// that sends the whole record back, date and images as they are, succeeds.
type Patch struct {
	Title       *string
	Description *string
	Date        *string
	Images      *[]string
}

// check refuses a patch that changes nothing.
func (p Patch) check() error {
	if p.Title == nil && p.Description == nil {
		return core.InvalidRequest("memories.sendTitleDescriptionChange", "send title and/or description to change")
	}
	return nil
}

// keeps reports whether p's date and images, when sent, are m's own.
func (p Patch) keeps(m Memory) bool {
	if p.Date != nil && strings.TrimSpace(*p.Date) != m.Date.String() {
		return false
	}
	return p.Images == nil || slices.Equal(*p.Images, m.Images)
}

// apply returns m with p's fields, checked.
func (p Patch) apply(m Memory) (Memory, error) {
	if err := p.check(); err != nil {
		return Memory{}, err
	}
	if !p.keeps(m) {
		return Memory{}, core.InvalidRequest("memories.dateImagesCannotChangedSend", "date and images cannot be changed: send title and/or description")
	}
	if p.Title != nil {
		m.Title = strings.TrimSpace(*p.Title)
	}
	if p.Description != nil {
		m.Description = strings.TrimSpace(*p.Description)
	}
	return m, validateText(m.Title, m.Description)
}

// validateText checks the title and the description.
func validateText(title, description string) error {
	switch {
	case title == "":
		return core.Required("title")
	case utf8.RuneCountInString(title) > MaxTitle:
		return core.TooLong("title", MaxTitle)
	case utf8.RuneCountInString(description) > MaxDescription:
		return core.TooLong("description", MaxDescription)
	}
	if err := core.CheckText("title", title, false); err != nil {
		return err
	}
	return core.CheckText("description", description, true)
}

// ParseDay reads the YYYY-MM-DD date named field of a query or a body: "" is
// a 400 invalid_request (required), anything else that is not a real date
// between MinDate and MaxDate a 400 invalid_date.
func ParseDay(field, s string) (core.Date, error) {
	if s == "" {
		return core.Date{}, core.InvalidRequest("memories.requiredYYYYMMDD", "%s is required (YYYY-MM-DD)", field)
	}
	d, err := core.ParseDate(s)
	if err != nil {
		return core.Date{}, core.Invalid("invalid_date", "moods.dateFormYYYYMMDD", "%s must be a date in the form YYYY-MM-DD", field)
	}
	if d.Before(MinDate) || d.After(MaxDate) {
		return core.Date{}, core.Invalid("invalid_date", "moods.between190001019999", "%s must be between 1900-01-01 and 9999-12-31", field)
	}
	return d, nil
}

// CheckDay is the rule of a memory's date: a memory is of a day that has
// begun somewhere, so it may be at most one day after the UTC date of now
// (the local date of a user east of UTC, up to UTC+14, runs ahead of it).
func CheckDay(d core.Date, now time.Time) error {
	if d.After(core.Today(now, time.UTC).AddDays(1)) {
		return core.Invalid("invalid_date", "memories.dateNotFuture", "date must not be in the future")
	}
	return nil
}

// ImagePattern is the closest outer bound of checkImage the API document
// states: an http or https address whose path ends in /files/ and a key,
// spaces around it trimmed. The prefix must also be this server's
// FilesURL, which depends on the deployment.
const ImagePattern = `^[` + core.SpaceClass + `]*[Hh][Tt][Tt][Pp][Ss]?://[^\s/?#@]\S*/files/` +
	`(?:[A-Za-z0-9_-][A-Za-z0-9._-]*/)*[A-Za-z0-9_-][A-Za-z0-9._-]*[` + core.SpaceClass + `]*$`

// NormalizeImages checks image addresses: at most MaxImages, each an http or
// https URL of at most MaxImageURL bytes under s.FilesURL() (a file this
// server hands out), its key made of "/"-separated segments of A-Z a-z 0-9
// . _ - none starting with ".". Surrounding spaces are trimmed and repeats
// dropped (keeping the first place). It never returns nil for a valid list.
func NormalizeImages(addrs []string, s Settings) ([]string, error) {
	if len(addrs) > MaxImages {
		return nil, core.InvalidRequest("memories.imagesMayHoldMostAddresses", "images may hold at most {1|%[1]d address|%[1]d addresses}", MaxImages)
	}
	out := make([]string, 0, len(addrs))
	for _, a := range addrs {
		a = strings.TrimSpace(a)
		if err := checkImage(a, s); err != nil {
			return nil, err
		}
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out, nil
}

func checkImage(addr string, s Settings) error {
	if addr == "" || len(addr) > MaxImageURL {
		return core.InvalidRequest("memories.imagesAddresses1Characters", "images must be addresses of 1 to {1|%[1]d character|%[1]d characters}", MaxImageURL)
	}
	u, err := url.Parse(addr)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return core.InvalidRequest("memories.imagesHttpHttpsAddresses", "images must be http or https addresses")
	}
	key, ok := strings.CutPrefix(addr, s.FilesURL())
	if !ok || !validKey(key) {
		return core.InvalidRequest("memories.imagesAddressesUploadedImages", "images must be addresses of uploaded images (%s...)", s.FilesURL())
	}
	return nil
}

// validKey accepts a file key as the files route serves it.
func validKey(key string) bool {
	if key == "" {
		return false
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == "" || seg[0] == '.' {
			return false
		}
		for i := 0; i < len(seg); i++ {
			c := seg[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
				return false
			}
		}
	}
	return true
}

// Span is an inclusive range of memory dates; AllDates is every date.
type Span struct{ From, To core.Date }

// AllDates is the span of an unfiltered list.
var AllDates = Span{From: MinDate, To: MaxDate}

// Cursor is a position in the list order of a user's memories (newest date
// first; on one date, the latest created first; then the id, descending): a
// page continues after it.
type Cursor struct {
	Date      core.Date
	CreatedAt int64 // milliseconds
	ID        string
}

// CursorAfter is the cursor that continues after m.
func CursorAfter(m Memory) Cursor {
	return Cursor{Date: m.Date, CreatedAt: core.Millis(m.CreatedAt), ID: m.ID}
}

// String is the opaque form handed to clients.
func (c Cursor) String() string {
	return core.EncodeCursor(c.Date.String(), strconv.FormatInt(c.CreatedAt, 10), c.ID)
}

// ParseCursor reverses Cursor.String; anything else is a 400.
func ParseCursor(s string) (Cursor, error) {
	parts, err := core.DecodeCursor(s, 3)
	if err != nil {
		return Cursor{}, err
	}
	d, derr := core.ParseDate(parts[0])
	ms, ok := core.ParseMillis(parts[1])
	if derr != nil || !ok || parts[2] == "" {
		return Cursor{}, core.Invalid("invalid_request", "core.cursorNotOneServerHanded", "cursor is not one this server handed out")
	}
	return Cursor{Date: d, CreatedAt: ms, ID: parts[2]}, nil
}

// ListOrder compares memories in list order: the newer date first, then the
// later creation, then the greater id.
func ListOrder(a, b Memory) int {
	if c := b.Date.Time().Compare(a.Date.Time()); c != 0 {
		return c
	}
	if c := cmp.Compare(core.Millis(b.CreatedAt), core.Millis(a.CreatedAt)); c != 0 {
		return c
	}
	return strings.Compare(b.ID, a.ID)
}

// After reports whether m comes after c in list order.
func (c Cursor) After(m Memory) bool {
	return ListOrder(m, Memory{Date: c.Date, CreatedAt: core.FromMillis(c.CreatedAt), ID: c.ID}) > 0
}

// PageOf cuts ms, read in list order with one more than page.Size() asked
// for, to the page, and returns the next cursor when the caller pages and
// more follow. Repositories share it so every store pages alike.
func PageOf(ms []Memory, page core.Page) ([]Memory, string) {
	return core.CutPage(ms, page, func(m Memory) string { return CursorAfter(m).String() })
}

func errNotFound() error {
	return core.NotFound("not_found", "memories.memoryNotFound", "memory not found")
}
