package httpapi_test

import (
	"strings"
	"testing"
	"time"

	"tandem/modules/messages"
)

// FuzzMessageBody: any body of POST /api/messages/send gets a 200 or a 4xx
// with the error body; a stored message has a body of 1-4000 characters,
// trimmed, without control (but tab and newline) or bidi characters, the
// sender as author, and is the newest of the couple's thread for both
// partners.
func FuzzMessageBody(f *testing.F) {
	f.Add([]byte(`{"body":"Hello"}`))
	f.Add([]byte(`{"body":"  two\nlines\t "}`))
	f.Add([]byte(`{"body":""}`))
	f.Add([]byte(`{"body":null}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		a := apiForFuzz(t)
		a.mu.Lock()
		defer a.mu.Unlock()
		hdr := map[string]string{"X-API-Key": fuzzKey}
		a.clock.Advance(time.Millisecond) // the thread orders by time, then by (random) id
		st, b := a.sendWith(t, "POST", "/api/messages/send", a.user.Token, body, hdr)
		if st != 200 {
			return
		}
		id := decodeAs[struct{ ID string }](t, b).ID
		for _, u := range []fuzzUser{a.user, a.partner} {
			st, lb := a.sendWith(t, "GET", "/api/messages/list?limit=1", u.Token, nil, hdr)
			list := decodeAs[[]struct{ ID, Body, Author string }](t, lb)
			if st != 200 || len(list) != 1 || list[0].ID != id || list[0].Author != a.user.ID {
				t.Fatalf("the sent message %s is not the newest for %s: %s", id, u.ID, lb)
			}
			textRule(t, "body", list[0].Body, 1, messages.MaxBody, true, true)
			if sent, ok := textFields(body); ok && strings.TrimSpace(sent["body"]) != list[0].Body {
				t.Fatalf("body %q stored as %q", sent["body"], list[0].Body)
			}
		}
	})
}
