package httpapi_test

import (
	"bytes"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"tandem/core"
	"tandem/modules/events"
)

// eventRecord is the documented calendar event record.
type eventRecord struct {
	ID              string   `json:"id"`
	UserID          string   `json:"userId"`
	Title           string   `json:"title"`
	Description     string   `json:"description"`
	StartDate       string   `json:"startDate"`
	EndDate         string   `json:"endDate"`
	StartTime       string   `json:"startTime"`
	EndTime         string   `json:"endTime"`
	Location        string   `json:"location"`
	EventType       string   `json:"eventType"`
	ImportanceLevel string   `json:"importanceLevel"`
	Notify          string   `json:"notify"`
	Participants    []string `json:"participants"`
	CreatedAt       int64    `json:"createdAt"`
	UpdatedAt       int64    `json:"updatedAt"`
}

var wallTime = regexp.MustCompile(`^([01][0-9]|2[0-3]):[0-5][0-9]$`)

// FuzzEventBody: any body of POST .../events (create) and PUT
// .../events/{id} gets a 200 or a 4xx with the error body, never a 5xx;
// an event the API accepts holds only what the documented rules allow
// (title 1-200, description ≤ 2000, location ≤ 200, trimmed, no control or
// bidi characters; real dates from 1000-01-01 to 9999-12-31, end not before
// start, at most 366 days; times HH:mm, not reversed on one day; one of the
// six types and three levels; notify 0 to 40320 minutes; at most 20 unique
// trimmed participants of 1 to 64 characters without control or bidi
// characters), keeps the title it was sent,
// and reads back as answered.
func FuzzEventBody(f *testing.F) {
	f.Add([]byte(`{"action":"create","title":"Dinner","startDate":"2025-06-20"}`), false)
	f.Add([]byte(`{"action":"create","title":" Trip ","description":"a\nb","startDate":"2025-06-20","endDate":"2025-06-27","startTime":"09:00","endTime":"18:30","location":"Lyon","eventType":"traveling","importanceLevel":"High","notify":"60","participants":["u1"," u2 ","u1"]}`), false)
	f.Add([]byte(`{"action":"create","title":"x","startDate":"2025-06-20","notify":40320}`), false)
	f.Add([]byte(`{"title":"Renamed","endDate":"2026-06-21","startTime":""}`), true)
	f.Add([]byte(`{"action":"create","title":"x","startDate":"2025-02-29"}`), false)
	f.Add([]byte(`{"notify":"-1"}`), true)
	f.Add([]byte(`[]`), false)
	f.Fuzz(func(t *testing.T, body []byte, update bool) {
		a := apiForFuzz(t)
		a.mu.Lock()
		defer a.mu.Unlock()
		base := "/api/users/user/" + a.user.ID + "/events/"
		path, method := base, "POST"
		if update {
			seed := decodeAs[eventRecord](t, a.must(t, "POST", base, a.user.Token,
				[]byte(`{"action":"create","title":"Seed","startDate":"2025-06-20"}`)))
			path, method = base+seed.ID, "PUT"
			defer a.must(t, "DELETE", path, a.user.Token, nil)
		}
		st, b := a.send(t, method, path, a.user.Token, body)
		if st != 200 {
			return
		}
		e := decodeAs[eventRecord](t, b)
		if !update {
			defer a.must(t, "DELETE", base+e.ID, a.user.Token, nil)
		}
		checkEvent(t, e)
		if sent, ok := textFields(body); ok {
			if title, set := sent["title"]; set && strings.TrimSpace(title) != e.Title {
				t.Fatalf("title %q was stored as %q", title, e.Title)
			}
		}
		stored := a.must(t, "GET", base+e.ID, a.user.Token, nil)
		if !bytes.Equal(stored, append(bytes.TrimSuffix(b, []byte("}\n")), []byte(`,"isPartnerEvent":false}`+"\n")...)) {
			t.Fatalf("answered %s, stored %s", b, stored)
		}
	})
}

func checkEvent(t *testing.T, e eventRecord) {
	t.Helper()
	textRule(t, "title", e.Title, 1, events.MaxTitle, false, true)
	textRule(t, "description", e.Description, 0, events.MaxDescription, true, true)
	textRule(t, "location", e.Location, 0, events.MaxLocation, false, true)
	start, err1 := core.ParseDate(e.StartDate)
	end, err2 := core.ParseDate(e.EndDate)
	switch {
	case err1 != nil || err2 != nil || start.String() != e.StartDate || end.String() != e.EndDate:
		t.Fatalf("dates %q to %q are not YYYY-MM-DD", e.StartDate, e.EndDate)
	case start.Before(events.MinDate) || end.After(events.MaxDate) || end.Before(start):
		t.Fatalf("dates %s to %s are out of order or range", start, end)
	case start.DaysUntil(end) > events.MaxSpanDays:
		t.Fatalf("event of %d days", start.DaysUntil(end))
	}
	for _, tm := range []string{e.StartTime, e.EndTime} {
		if tm != "" && !wallTime.MatchString(tm) {
			t.Fatalf("time %q is not HH:mm", tm)
		}
	}
	if start == end && e.StartTime != "" && e.EndTime != "" && e.EndTime < e.StartTime {
		t.Fatalf("one-day event from %s to %s", e.StartTime, e.EndTime)
	}
	if !slices.Contains([]string{"date", "meeting", "reminder", "traveling", "task", "other"}, e.EventType) ||
		!slices.Contains([]string{"Low", "Medium", "High"}, e.ImportanceLevel) {
		t.Fatalf("type %q, importance %q", e.EventType, e.ImportanceLevel)
	}
	if e.Notify != "" {
		n, err := strconv.Atoi(e.Notify)
		if err != nil || n < 0 || n > events.MaxNotifyMinutes || strconv.Itoa(n) != e.Notify {
			t.Fatalf("notify %q", e.Notify)
		}
	}
	if e.Participants == nil || len(e.Participants) > events.MaxParticipants {
		t.Fatalf("%d participants", len(e.Participants))
	}
	for i, p := range e.Participants {
		if p == "" || strings.TrimSpace(p) != p || utf8.RuneCountInString(p) > events.MaxParticipantID || slices.Index(e.Participants, p) != i ||
			core.CheckText("participants", p, false) != nil {
			t.Fatalf("participants %q", e.Participants)
		}
	}
}
