package httpapi

import (
	"testing"
	"time"
)

func TestFeedbackDateIsDDMMYYYYInUTC(t *testing.T) {
	t.Parallel()
	tokyo := time.FixedZone("JST", 9*3600)
	for _, tc := range []struct {
		at   time.Time
		want string
	}{
		{time.Date(2025, 1, 2, 0, 0, 0, 0, time.UTC), "02/01/2025"},
		{time.Date(2025, 12, 31, 23, 59, 59, 0, time.UTC), "31/12/2025"},
		{time.Date(2025, 6, 16, 8, 0, 0, 0, tokyo), "15/06/2025"}, // 23:00 UTC the day before
	} {
		if got := FeedbackDate(tc.at); got != tc.want {
			t.Errorf("%v: %s, want %s", tc.at, got, tc.want)
		}
	}
}
