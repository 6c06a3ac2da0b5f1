package httpapi_test

import (
	"testing"
	"time"

	"tandem/core"
)

// FuzzRelationshipBody: any body of POST /api/user/{id}/relationship
// (start, end) gets a 200 or a 4xx with the error body; both partners then
// read the same duration: a start at midnight UTC of a real date, an end
// exactly when it is not active and never before the start, and days ≥ 0.
func FuzzRelationshipBody(f *testing.F) {
	f.Add([]byte(`{"action":"start","date":"2024-02-14"}`))
	f.Add([]byte(`{"action":"end","date":"2025-06-15"}`))
	f.Add([]byte(`{"action":"start"}`))
	f.Add([]byte(`{"action":"start","date":"2099-01-01"}`))
	f.Add([]byte(`{"action":"end","date":"1999-01-01"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		a := apiForFuzz(t)
		a.mu.Lock()
		defer a.mu.Unlock()
		if st, _ := a.send(t, "POST", "/api/user/"+a.user.ID+"/relationship", a.user.Token, body); st != 200 {
			return
		}
		var seen string
		for _, u := range []fuzzUser{a.user, a.partner} {
			b := a.must(t, "GET", "/api/user/"+u.ID+"/relationship", u.Token, nil)
			d := decodeAs[struct {
				Days      int     `json:"days"`
				StartDate string  `json:"startDate"`
				EndDate   *string `json:"endDate"`
				IsActive  bool    `json:"isActive"`
			}](t, b)
			start := midnight(t, d.StartDate)
			if d.Days < 0 || d.IsActive != (d.EndDate == nil) || (d.EndDate != nil && midnight(t, *d.EndDate).Before(start)) {
				t.Fatalf("duration %s", b)
			}
			if seen != "" && seen != d.StartDate {
				t.Fatalf("the partners read different starts: %s and %s", seen, d.StartDate)
			}
			seen = d.StartDate
		}
	})
}

func midnight(t *testing.T, s string) core.Date {
	t.Helper()
	at, err := time.Parse(time.RFC3339, s)
	if err != nil || at.Location() != time.UTC || at.Hour()+at.Minute()+at.Second() != 0 || at.Format(time.RFC3339) != s {
		t.Fatalf("%q is not midnight UTC in RFC 3339", s)
	}
	return core.DateOf(at)
}
