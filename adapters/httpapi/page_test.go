package httpapi

import (
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/gofiber/fiber/v2"
	"go.uber.org/zap"
)

func TestParsePage(t *testing.T) {
	cases := []struct {
		query  string
		status int
		want   string
	}{
		{"", 200, "limit=0 cursor= paged=false"},
		{"?limit=20&cursor=abc", 200, "limit=20 cursor=abc paged=true"},
		{"?limit=500", 200, "limit=500 cursor= paged=true"},
		{"?limit=0", 400, ""},
		{"?limit=501", 400, ""},
		{"?limit=ten", 400, ""},
	}
	app := fiber.New(fiber.Config{ErrorHandler: NewErrorHandler(zap.NewNop())})
	app.Get("/", func(c *fiber.Ctx) error {
		p, err := parsePage(c)
		if err != nil {
			return err
		}
		setNextCursor(c, "next")
		return c.SendString("limit=" + strconv.Itoa(p.Limit) + " cursor=" + p.Cursor + " paged=" + map[bool]string{true: "true", false: "false"}[p.Paged()])
	})
	for _, tc := range cases {
		res, err := app.Test(httptest.NewRequest("GET", "/"+tc.query, nil))
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 200)
		n, _ := res.Body.Read(buf)
		if res.StatusCode != tc.status || (tc.status == 200 && (string(buf[:n]) != tc.want || res.Header.Get("X-Next-Cursor") != "next")) {
			t.Fatalf("%s: %d %s", tc.query, res.StatusCode, buf[:n])
		}
	}
}
