package httpapi

import (
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"tandem/modules/flags"
)

func TestReasonMessages(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	app := fiber.New()
	c := app.AcquireCtx(&fasthttp.RequestCtx{})
	defer app.ReleaseCtx(c)
	for _, r := range []flags.Reason{flags.ReasonUnknown, flags.ReasonDisabled, flags.ReasonDenied, flags.ReasonAllowed,
		flags.ReasonPlatform, flags.ReasonPremium, flags.ReasonRolledOut, flags.ReasonNotRolledOut} {
		m := reasonMessage(c, r)
		if m == "" || seen[m] {
			t.Fatalf("%q: message %q", r, m)
		}
		seen[m] = true
	}
}
