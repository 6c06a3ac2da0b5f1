package httpapi

import (
	"github.com/gofiber/fiber/v2"
	"go.uber.org/zap"

	"tandem/adapters/web"
	"tandem/core"
)

// errorBody is the one error shape of the API.
// Field names are the app's contract: do not rename.
type errorBody struct {
	Success bool   `json:"success"`
	Error   string `json:"error"`
	Code    string `json:"code,omitempty"`
	Message string `json:"message"`
}

// NewErrorHandler renders every error (core, Fiber, panic) as the one body;
// internal causes go only to the log, with the request id and the route.
func NewErrorHandler(log *zap.Logger) fiber.ErrorHandler {
	return func(c *fiber.Ctx, err error) error {
		e, status := web.Classify(err)
		switch {
		case sheds(e):
			// Expected under a burst and answered with a retry time: worth
			// seeing, not an outage.
			log.Warn("request shed", zap.String("code", e.Code), zap.Error(err), web.LogIDs(c),
				zap.String("method", c.Method()), zap.String("path", c.Path()))
		case e.Kind == core.KindInternal || e.Kind == core.KindUnavailable || e.Kind == core.KindInsufficientStorage:
			log.Error("request failed", zap.Error(err), web.LogIDs(c),
				zap.String("method", c.Method()), zap.String("path", c.Path()))
		}
		if (e.Kind == core.KindRateLimited || sheds(e)) && e.RetryAfter > 0 {
			c.Set(fiber.HeaderRetryAfter, web.RetryAfter(e.RetryAfter))
		}
		shown := public(e)
		body := renderError(shown)
		body.Message = sayError(c, shown)
		return c.Status(status).JSON(body)
	}
}

// sheds reports a 503 that turns work away for a moment (busy: no password
// hashing slot or image decoding budget came free in time) rather than an
// outage: it carries a Retry-After, and its code and message were written for
// the client.
func sheds(e *core.Error) bool { return e.Kind == core.KindUnavailable && e.RetryAfter > 0 }

// The generic errors a 5xx is answered with: its cause stays in the log.
var (
	internalError = core.Internal(nil)
	unavailable   = core.Unavailable("unavailable", "web.serviceUnavailable", "service unavailable")
)

// public is what the client is told of e: 5xx text is generic, except a 503
// that sheds load (its cause, if any, is still never rendered).
func public(e *core.Error) *core.Error {
	switch {
	case e.Kind == core.KindInternal:
		return internalError
	case e.Kind == core.KindUnavailable && !sheds(e):
		return unavailable
	}
	return e
}

// renderError makes the body of e as the client is told it (public).
func renderError(e *core.Error) errorBody {
	msg, code := e.Message, e.Code
	if code == "" && e.Kind != core.KindInvalid {
		code = defaultCode[e.Kind]
	}
	return errorBody{Success: false, Error: msg, Code: code, Message: msg}
}

// defaultCode fills a missing code, except for 400s: the spec's login error
// with a missing field deliberately carries none.
var defaultCode = map[core.Kind]string{
	core.KindUnauthorized:  "unauthorized",
	core.KindForbidden:     "forbidden",
	core.KindNotFound:      "not_found",
	core.KindConflict:      "conflict",
	core.KindTooLarge:      "payload_too_large",
	core.KindUnsupported:   "unsupported_media_type",
	core.KindRateLimited:   "rate_limited",
	core.KindUnprocessable: "unprocessable",
	core.KindGone:          "gone",
}
