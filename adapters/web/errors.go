package web

import (
	"errors"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"tandem/core"
)

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
	core.KindGone:                fiber.StatusGone,
}

// StatusOf is the HTTP status of a core kind.
func StatusOf(k core.Kind) int { return kindStatus[k] }

// AsError is err as the one error type: Fiber's own errors translated
// (fromFiber), anything unclassified internal. The console renders its
// pages from it as the API's ErrorHandler renders bodies.
func AsError(err error) *core.Error {
	var fe *fiber.Error
	if errors.As(err, &fe) {
		return fromFiber(fe)
	}
	return core.As(err)
}

// Classify is err as AsError makes it, with the status the API answers:
// its kind's, or the true status of a Fiber error whose kind is shared.
func Classify(err error) (*core.Error, int) {
	e := AsError(err)
	var fe *fiber.Error
	if errors.As(err, &fe) {
		if s := statusOverride(fe); s != 0 {
			return e, s
		}
	}
	return e, StatusOf(e.Kind)
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
		return core.NotFound("not_found", "web.noSuchRoute", "no such route")
	case fiber.StatusMethodNotAllowed:
		return &core.Error{Kind: core.KindInvalid, Code: "method_not_allowed", Message: "method not allowed on this route", ID: "web.methodNotAllowedRoute", Format: "method not allowed on this route"}
	case fiber.StatusRequestEntityTooLarge:
		return core.TooLarge("payload_too_large", "web.requestBodyTooLarge", "request body too large")
	case fiber.StatusUnsupportedMediaType:
		return core.Unsupported("unsupported_media_type", "web.unsupportedContentType", "unsupported content type")
	case fiber.StatusRequestTimeout:
		return &core.Error{Kind: core.KindInvalid, Code: "request_timeout", Message: "request timed out", ID: "web.requestTimedOut", Format: "request timed out"}
	}
	if fe.Code == fiber.StatusRequestHeaderFieldsTooLarge {
		return core.Invalid("invalid_request", "web.requestHeadersTooLarge", "request headers too large")
	}
	if fe.Code >= 400 && fe.Code < 500 {
		// Never fe.Message: for a request fasthttp cannot parse it quotes the
		// raw request bytes back.
		return core.Invalid("invalid_request", "web.malformedRequest", "malformed request")
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
