package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"go.uber.org/zap"

	"tandem/core"
)

// TestErrorBodiesAreGolden pins the exact bytes of every error the API sends.
func TestErrorBodiesAreGolden(t *testing.T) {
	cases := []struct {
		name       string
		err        error
		status     int
		body       string
		retryAfter string
	}{
		{"invalid with spec code", core.Invalid("invalid_code", "httpapi.invalidCode", "invalid code"), 400,
			`{"success":false,"error":"invalid code","code":"invalid_code","message":"invalid code"}`, ""},
		{"invalid without code (login missing field)", core.Invalid("", "httpapi.emailPasswordRequired", "email and password are required"), 400,
			`{"success":false,"error":"email and password are required","message":"email and password are required"}`, ""},
		{"pairing code", core.Invalid("invalid_pairing_code", "httpapi.invalidExpiredPairingCode", "invalid or expired pairing code"), 400,
			`{"success":false,"error":"invalid or expired pairing code","code":"invalid_pairing_code","message":"invalid or expired pairing code"}`, ""},
		{"unauthorized", core.Unauthorized("invalid_credentials", "httpapi.invalidMailPassword", "invalid e-mail or password"), 401,
			`{"success":false,"error":"invalid e-mail or password","code":"invalid_credentials","message":"invalid e-mail or password"}`, ""},
		{"forbidden default code", core.Forbidden("", "httpapi.notYours", "not yours"), 403,
			`{"success":false,"error":"not yours","code":"forbidden","message":"not yours"}`, ""},
		{"not found", core.NotFound("user_not_found", "httpapi.userNotFound", "user not found"), 404,
			`{"success":false,"error":"user not found","code":"user_not_found","message":"user not found"}`, ""},
		{"conflict", core.Conflict("email_already_registered", "httpapi.mailAlreadyRegistered", "e-mail already registered"), 409,
			`{"success":false,"error":"e-mail already registered","code":"email_already_registered","message":"e-mail already registered"}`, ""},
		{"too large", core.TooLarge("payload_too_large", "httpapi.requestBodyTooLarge", "request body too large"), 413,
			`{"success":false,"error":"request body too large","code":"payload_too_large","message":"request body too large"}`, ""},
		{"unsupported", core.Unsupported("unsupported_media_type", "httpapi.sendJSON", "send JSON"), 415,
			`{"success":false,"error":"send JSON","code":"unsupported_media_type","message":"send JSON"}`, ""},
		{"rate limited rounds Retry-After up", core.RateLimited("too_many_attempts", "httpapi.slowDown", "slow down", 1500*time.Millisecond), 429,
			`{"success":false,"error":"slow down","code":"too_many_attempts","message":"slow down"}`, "2"},
		{"unavailable hides the cause", core.Unavailable("unavailable", "httpapi.dbDown", "db down").Wrap(errors.New("dial tcp: refused")), 503,
			`{"success":false,"error":"service unavailable","code":"unavailable","message":"service unavailable"}`, ""},
		{"busy keeps its code and message and sends Retry-After", busy(errors.New("no slot within 2s")), 503,
			`{"success":false,"error":"the server is busy; try again in a moment","code":"busy","message":"the server is busy; try again in a moment"}`, "1"},
		{"foreign error is internal and generic", errors.New("pq: secret table missing"), 500,
			`{"success":false,"error":"internal error","code":"internal_error","message":"internal error"}`, ""},
		{"fiber 404", fiber.ErrNotFound, 404,
			`{"success":false,"error":"no such route","code":"not_found","message":"no such route"}`, ""},
		{"fiber 405", fiber.ErrMethodNotAllowed, 405,
			`{"success":false,"error":"method not allowed on this route","code":"method_not_allowed","message":"method not allowed on this route"}`, ""},
		{"fiber 413", fiber.ErrRequestEntityTooLarge, 413,
			`{"success":false,"error":"request body too large","code":"payload_too_large","message":"request body too large"}`, ""},
		{"an unparsable request is not quoted back", fiber.NewError(400, `error when reading request headers: contents: "GET /<script>alert(1)</script>"`), 400,
			`{"success":false,"error":"malformed request","code":"invalid_request","message":"malformed request"}`, ""},
		{"fiber 415", fiber.ErrUnsupportedMediaType, 415,
			`{"success":false,"error":"unsupported content type","code":"unsupported_media_type","message":"unsupported content type"}`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			app := fiber.New(fiber.Config{ErrorHandler: NewErrorHandler(zap.NewNop()), JSONEncoder: encodeJSON})
			app.Get("/", func(*fiber.Ctx) error { return tc.err })
			res, err := app.Test(httptest.NewRequest("GET", "/", nil))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != tc.status || string(body) != tc.body+"\n" {
				t.Fatalf("got %d %s\nwant %d %s", res.StatusCode, body, tc.status, tc.body)
			}
			if got := res.Header.Get("Retry-After"); got != tc.retryAfter {
				t.Fatalf("Retry-After %q, want %q", got, tc.retryAfter)
			}
			if !json.Valid(body) || res.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("not JSON: %s", res.Header.Get("Content-Type"))
			}
		})
	}
}

// busy is the 503 the password hasher and the image decoder send when no
// slot comes free in time.
func busy(cause error) error {
	e := core.Unavailable("busy", "httpapi.serverBusyTryAgainMoment", "the server is busy; try again in a moment").Wrap(cause)
	e.RetryAfter = 900 * time.Millisecond
	return e
}
