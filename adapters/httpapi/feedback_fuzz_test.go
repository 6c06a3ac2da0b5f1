package httpapi_test

import (
	"testing"
	"time"
)

// FuzzFeedbackBody: any body of POST .../feedback gets a 200 or a 4xx with
// the error body; stored feedback is 1-5000 characters, trimmed, without
// control (but tab and newline) or bidi characters, and is the newest of
// the user's list.
func FuzzFeedbackBody(f *testing.F) {
	f.Add([]byte(`{"feedbackMessage":"Love the app"}`))
	f.Add([]byte(`{"feedbackMessage":"   "}`))
	f.Add([]byte(`{"feedbackMessage":"a\u0000b"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		a := apiForFuzz(t)
		a.mu.Lock()
		defer a.mu.Unlock()
		path := "/api/users/user/" + a.user.ID + "/feedback"
		a.clock.Advance(time.Millisecond) // the list orders by time, then by (random) id
		st, b := a.send(t, "POST", path, a.user.Token, body)
		if st == 429 {
			a.advance(t, time.Hour) // 20 an hour: the next window
		}
		if st != 200 {
			return
		}
		id := decodeAs[struct{ FeedbackID string }](t, b).FeedbackID
		list := decodeAs[struct {
			Feedback []struct{ FeedbackID, FeedbackMessage, UserID string }
		}](t, a.must(t, "GET", path+"?limit=1", a.user.Token, nil))
		if len(list.Feedback) != 1 || list.Feedback[0].FeedbackID != id || list.Feedback[0].UserID != a.user.ID {
			t.Fatalf("feedback %s is not the newest: %+v", id, list)
		}
		textRule(t, "feedbackMessage", list.Feedback[0].FeedbackMessage, 1, 5000, true, true)
	})
}
