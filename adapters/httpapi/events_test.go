package httpapi

import (
	"testing"

	"tandem/core"
	"tandem/modules/events"
)

func TestRangeMessagesCountInWords(t *testing.T) {
	from, _ := core.ParseDate("2025-03-01")
	to, _ := core.ParseDate("2025-03-03")
	rep := events.RangeReport{From: from, To: to}
	cases := []struct {
		n    int
		how  string
		want string
	}{
		{0, "exactly from", "no events exactly from 2025-03-01 to 2025-03-03"},
		{1, "exactly from", "1 event exactly from 2025-03-01 to 2025-03-03"},
		{2, "overlapping", "2 events overlapping 2025-03-01 to 2025-03-03"},
	}
	for _, tc := range cases {
		if got := rangeMessage(tc.n, tc.how, rep); got != tc.want {
			t.Errorf("rangeMessage(%d, %q) = %q, want %q", tc.n, tc.how, got, tc.want)
		}
	}
}
