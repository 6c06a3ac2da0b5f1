package httpapi

import (
	"errors"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"
	"go.uber.org/zap"

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

var kindStatus = map[core.Kind]int{
	core.KindInvalid:             fiber.StatusBadRequest,
	core.KindUnauthorized:        fiber.StatusUnauthorized,
	core.KindForbidden:           fiber.StatusForbidden,
	core.KindNotFound:            fiber.StatusNotFound,
	core.KindConflict:            fiber.StatusConflict,
	core.KindTooLarge:            fiber.StatusRequestEntityTooLarge,
	core.KindUnsupported:         fiber.StatusUnsupportedMediaType,
	core.KindRateLimited:         fiber.StatusTooManyRequests,
	core.KindUnavailable:         fiber.StatusServiceUnavailable,
	core.KindInsufficientStorage: fiber.StatusInsufficientStorage,
	core.KindInternal:            fiber.StatusInternalServerError,
	core.KindUnprocessable:       fiber.StatusUnprocessableEntity,
}

// StatusOf is the HTTP status of a core kind.
func StatusOf(k core.Kind) int { return kindStatus[k] }

// AsError is err as the one error type: Fiber's own errors translated
// (fromFiber), anything unclassified internal. The console renders its
// pages from it as the ErrorHandler renders bodies.
func AsError(err error) *core.Error {
	var fe *fiber.Error
	if errors.As(err, &fe) {
		return fromFiber(fe)
	}
	return core.As(err)
}

// RetryAfter is d as a Retry-After header: whole seconds, rounded up.
func RetryAfter(d time.Duration) string {
	return strconv.Itoa(int((d + time.Second - 1) / time.Second))
}

// fromFiber translates Fiber's own errors (no route, wrong method, body
// limit, body parser) into core errors with the API's codes.
func fromFiber(fe *fiber.Error) *core.Error {
	switch fe.Code {
	case fiber.StatusNotFound:
		return core.NotFound("not_found", "no such route")
	case fiber.StatusMethodNotAllowed:
		return &core.Error{Kind: core.KindInvalid, Code: "method_not_allowed", Message: "method not allowed on this route", Format: "method not allowed on this route"}
	case fiber.StatusRequestEntityTooLarge:
		return core.TooLarge("payload_too_large", "request body too large")
	case fiber.StatusUnsupportedMediaType:
		return core.Unsupported("unsupported_media_type", "unsupported content type")
	case fiber.StatusRequestTimeout:
		return &core.Error{Kind: core.KindInvalid, Code: "request_timeout", Message: "request timed out", Format: "request timed out"}
	}
	if fe.Code == fiber.StatusRequestHeaderFieldsTooLarge {
		return core.Invalid("invalid_request", "request headers too large")
	}
	if fe.Code >= 400 && fe.Code < 500 {
		// Never fe.Message: for a request fasthttp cannot parse it quotes the
		// raw request bytes back.
		return core.Invalid("invalid_request", "malformed request")
	}
	return core.Internal(fe)
}

// statusOverride keeps the true status of Fiber errors whose kind is shared.
func statusOverride(fe *fiber.Error) int {
	if fe.Code == fiber.StatusMethodNotAllowed || fe.Code == fiber.StatusRequestTimeout {
		return fe.Code
	}
	return 0
}

// NewErrorHandler renders every error (core, Fiber, panic) as the one body;
// internal causes go only to the log, with the request id and the route.
func NewErrorHandler(log *zap.Logger) fiber.ErrorHandler {
	return func(c *fiber.Ctx, err error) error {
		e, status := classify(err)
		switch {
		case sheds(e):
			// Expected under a burst and answered with a retry time: worth
			// seeing, not an outage.
			log.Warn("request shed", zap.String("code", e.Code), zap.Error(err), logIDs(c),
				zap.String("method", c.Method()), zap.String("path", c.Path()))
		case e.Kind == core.KindInternal || e.Kind == core.KindUnavailable || e.Kind == core.KindInsufficientStorage:
			log.Error("request failed", zap.Error(err), logIDs(c),
				zap.String("method", c.Method()), zap.String("path", c.Path()))
		}
		if (e.Kind == core.KindRateLimited || sheds(e)) && e.RetryAfter > 0 {
			c.Set(fiber.HeaderRetryAfter, RetryAfter(e.RetryAfter))
		}
		body := renderError(e)
		body.Message = sayError(c, e, body.Message)
		return c.Status(status).JSON(body)
	}
}

func classify(err error) (*core.Error, int) {
	e := AsError(err)
	var fe *fiber.Error
	if errors.As(err, &fe) {
		if s := statusOverride(fe); s != 0 {
			return e, s
		}
	}
	return e, StatusOf(e.Kind)
}

// sheds reports a 503 that turns work away for a moment (busy: no password
// hashing slot or image decoding budget came free in time) rather than an
// outage: it carries a Retry-After, and its code and message were written for
// the client.
func sheds(e *core.Error) bool { return e.Kind == core.KindUnavailable && e.RetryAfter > 0 }

// renderError makes the body; 5xx text is generic, except a 503 that sheds
// load (its cause, if any, is still never rendered).
func renderError(e *core.Error) errorBody {
	msg, code := e.Message, e.Code
	switch {
	case e.Kind == core.KindInternal:
		msg, code = "internal error", "internal_error"
	case e.Kind == core.KindUnavailable && !sheds(e):
		msg, code = "service unavailable", "unavailable"
	}
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
}
