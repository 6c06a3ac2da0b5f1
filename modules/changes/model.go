// Package changes is the durable change feed (issue 47): what changed for a
// reader since a cursor, in commit order, kept for a retention. The changes
// themselves are recorded by the stores in the transaction of each write
// (core.WriteWithChanges); this module reads them, keeps the cursors and
// purges what is past the retention.
package changes

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"time"

	"tandem/core"
)

// The feed's page sizes: ?limit= 1 to MaxLimit, DefaultLimit without one.
const (
	DefaultLimit = 100
	MaxLimit     = 500
)

// DefaultRetention is how long changes are kept (TANDEM_CHANGES_RETENTION).
const DefaultRetention = 30 * 24 * time.Hour

// Cursor is a position in one user's feed: after the change Seq, taken at
// At (the time of the last change read, or of the read when caught up: the
// changes after it are all younger). It is bound to its user.
type Cursor struct {
	Seq  int64
	At   time.Time
	User string // userTag of the cursor's user
}

const cursorVersion = "c1"

// userTag binds a cursor to its user without writing the id in it.
func userTag(userID string) string {
	h := sha256.Sum256([]byte("tandem changes cursor\x00" + userID))
	return hex.EncodeToString(h[:6])
}

// NewCursor is the cursor of userID's feed after seq, at.
func NewCursor(userID string, seq int64, at time.Time) Cursor {
	return Cursor{Seq: seq, At: at, User: userTag(userID)}
}

// String is the opaque form handed to the app.
func (c Cursor) String() string {
	return core.EncodeCursor(cursorVersion, strconv.FormatInt(c.Seq, 10), strconv.FormatInt(c.At.UnixMilli(), 10), c.User)
}

// ParseCursor reads a cursor the server handed out; anything else is 400.
func ParseCursor(s string) (Cursor, error) {
	parts, err := core.DecodeCursor(s, 4)
	if err != nil {
		return Cursor{}, err
	}
	seq, okSeq := core.ParseMillis(parts[1])
	at, okAt := core.ParseMillis(parts[2])
	if parts[0] != cursorVersion || !okSeq || !okAt || seq < 0 || len(parts[3]) != 12 {
		return Cursor{}, core.Invalid("invalid_request", "core.cursorNotOneServerHanded", "cursor is not one this server handed out")
	}
	return Cursor{Seq: seq, At: core.FromMillis(at), User: parts[3]}, nil
}

// Collapse keeps, of several changes of one record, the last: in the order
// of the kept ones (commit order). The feed may collapse (docs/api.md "Sync").
func Collapse(cs []core.Change) []core.Change {
	type key struct{ kind, id string }
	last := make(map[key]int, len(cs))
	for i, c := range cs {
		last[key{c.Kind, c.ID}] = i
	}
	out := make([]core.Change, 0, len(last))
	for i, c := range cs {
		if last[key{c.Kind, c.ID}] == i {
			out = append(out, c)
		}
	}
	return out
}
