package messages_test

import (
	"testing"

	"tandem/core"
	"tandem/modules/messages"
)

// FuzzParseCursor: a message thread cursor parses only in the form
// Cursor.String makes, so a parsed cursor re-encodes to the same string.
func FuzzParseCursor(f *testing.F) {
	f.Add(messages.Cursor{CreatedAt: 1750000000000, ID: "0190a1b2-0000-7000-8000-000000000001"}.String())
	f.Add(core.EncodeCursor("1750000000000"))
	f.Add(core.EncodeCursor("17e3", "id"))
	f.Fuzz(func(t *testing.T, s string) {
		c, err := messages.ParseCursor(s)
		if err != nil {
			if e := core.As(err); e.Kind != core.KindInvalid || e.Code != "invalid_request" {
				t.Fatalf("ParseCursor(%q): %v, want 400 invalid_request", s, err)
			}
			return
		}
		if c.String() != s || c.ID == "" {
			t.Fatalf("ParseCursor(%q) = %+v, which encodes as %q", s, c, c.String())
		}
	})
}
