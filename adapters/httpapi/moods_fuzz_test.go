package httpapi_test

import (
	"slices"
	"testing"
	"time"
)

// FuzzMoodBody: any body of POST .../moods gets a 200 or a 4xx with the
// error body; a stored mood is one of the five, its note at most 280
// characters, trimmed, without control (but tab and newline) or bidi
// characters, and it is the caller's one mood of the day in their list,
// which the partner lists too.
func FuzzMoodBody(f *testing.F) {
	f.Add([]byte(`{"mood":"great"}`))
	f.Add([]byte(`{"mood":"low","note":"  long day\n"}`))
	f.Add([]byte(`{"mood":"okay","note":"a\u202eb"}`))
	f.Add([]byte(`{"mood":"Good"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		a := apiForFuzz(t)
		a.mu.Lock()
		defer a.mu.Unlock()
		a.advance(t, time.Minute)
		path := "/api/users/user/" + a.user.ID + "/moods"
		st, b := a.send(t, "POST", path, a.user.Token, body)
		if st != 200 {
			return
		}
		type mood struct{ ID, UserID, Mood, Note, Date string }
		got := decodeAs[struct{ Mood mood }](t, b).Mood
		if got.UserID != a.user.ID || !slices.Contains([]string{"great", "good", "okay", "low", "awful"}, got.Mood) {
			t.Fatalf("stored %+v", got)
		}
		textRule(t, "note", got.Note, 0, 280, true, true)
		for _, u := range []fuzzUser{a.user, a.partner} {
			list := decodeAs[struct{ Moods []mood }](t, a.must(t, "GET", "/api/users/user/"+u.ID+"/moods?from="+got.Date+
				"&to="+got.Date, u.Token, nil))
			var mine []mood
			for _, m := range list.Moods {
				if m.UserID == a.user.ID {
					mine = append(mine, m)
				}
			}
			if len(mine) != 1 || mine[0] != got {
				t.Fatalf("%s lists %+v, want %+v", u.ID, list.Moods, got)
			}
		}
	})
}
