package httpapi

import (
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"tandem/core"
	"tandem/modules/events"
)

func TestRangeMessagesCountInWords(t *testing.T) {
	from, _ := core.ParseDate("2025-03-01")
	to, _ := core.ParseDate("2025-03-03")
	rep := events.RangeReport{From: from, To: to}
	cases := []struct {
		n     int
		exact bool
		want  string
	}{
		{0, true, "no events exactly from 2025-03-01 to 2025-03-03"},
		{1, true, "1 event exactly from 2025-03-01 to 2025-03-03"},
		{2, true, "2 events exactly from 2025-03-01 to 2025-03-03"},
		{0, false, "no events overlapping 2025-03-01 to 2025-03-03"},
		{1, false, "1 event overlapping 2025-03-01 to 2025-03-03"},
		{2, false, "2 events overlapping 2025-03-01 to 2025-03-03"},
	}
	app := fiber.New()
	c := app.AcquireCtx(&fasthttp.RequestCtx{})
	defer app.ReleaseCtx(c)
	for _, tc := range cases {
		if got := rangeMessage(c, tc.n, tc.exact, rep); got != tc.want {
			t.Errorf("rangeMessage(%d, %v) = %q, want %q", tc.n, tc.exact, got, tc.want)
		}
	}
}
