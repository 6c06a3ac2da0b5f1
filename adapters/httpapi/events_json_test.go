package httpapi

import (
	"bytes"
	"encoding/json"
	"testing"
)

func sampleEvent(s string) eventJSON {
	return eventJSON{ID: "ev-1", UserID: "u-1", Title: s, Description: "at " + s, StartDate: "2025-01-02",
		EndDate: "2025-01-03", StartTime: "19:30", EndTime: "", Location: s, EventType: "date",
		ImportanceLevel: "Medium", Notify: "30", Participants: []string{s, "p2"}, CreatedAt: 1735689600123, UpdatedAt: -1}
}

// TestEventsJSONIsJSONMarshal: the hand-written list reply is byte for byte
// what c.JSON (json.Marshal) wrote, escapes included.
func TestEventsJSONIsJSONMarshal(t *testing.T) {
	strs := []string{"", "Dinner", `quote " and \ slash`, "<b>&amp;</b>", "line\nbreak\ttab\r\b\f\x00\x1f",
		"caf\u00e9 \u2028 \u2029 \U0001F600", "bad \xff\xfe utf-8", "\x7f del", "emoji 👩‍❤️‍👨"}
	var all []eventJSON
	for _, s := range strs {
		all = append(all, sampleEvent(s))
	}
	empty := sampleEvent("x")
	empty.Participants = []string{}
	null := sampleEvent("y")
	null.Participants = nil
	all = append(all, empty, null)
	for _, es := range [][]eventJSON{{}, all[:1], all} {
		want, err := json.Marshal(es)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendEventsJSON(nil, es); !bytes.Equal(got, want) {
			t.Fatalf("got  %s\nwant %s", got, want)
		}
	}
}

func FuzzEventsJSONIsJSONMarshal(f *testing.F) {
	for _, s := range []string{"Dinner", "<&>", "\u2028", "\xff", "a\"b\\c\n"} {
		f.Add(s, s, int64(7))
	}
	f.Fuzz(func(t *testing.T, title, participant string, at int64) {
		e := sampleEvent(title)
		e.Participants = []string{participant}
		e.CreatedAt = at
		es := []eventJSON{e, sampleEvent(participant)}
		want, err := json.Marshal(es)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendEventsJSON(nil, es); !bytes.Equal(got, want) {
			t.Fatalf("got  %s\nwant %s", got, want)
		}
	})
}
