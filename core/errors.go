// Package core is the shared kernel: the error model, time and id ports, the
// authenticated principal, value types and the domain-event bus. It imports the
// standard library only.
package core

import (
	"errors"
	"fmt"
	"time"
)

// Kind says what went wrong; adapters/httpapi maps it to a status. The zero value
// is KindInternal so that an unclassified error can never leak as a 4xx.
type Kind uint8

const (
	KindInternal Kind = iota
	KindInvalid
	KindUnauthorized
	KindForbidden
	KindNotFound
	KindConflict
	KindTooLarge
	KindUnsupported
	KindRateLimited
	KindUnavailable
	// KindInsufficientStorage: the storage has no room left (507); the
	// request changed nothing and may succeed later.
	KindInsufficientStorage
	// KindUnprocessable: the request is well formed but cannot be applied
	// as sent (422), such as an Idempotency-Key reused for another request.
	KindUnprocessable
	// KindGone: what the request points at is no longer kept (410), such
	// as a change feed cursor past the retention.
	KindGone
)

var kindNames = [...]string{"internal", "invalid", "unauthorized", "forbidden", "not_found",
	"conflict", "too_large", "unsupported", "rate_limited", "unavailable", "insufficient_storage", "unprocessable", "gone"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// Error is the only error type that crosses a module boundary.
type Error struct {
	Kind    Kind
	Code    string // machine code from the spec; "" only where the spec shows none
	Message string // safe to show to the user, in English
	// ID is the stable key of Message's translations in the catalogs
	// ("events.endBeforeStart"): rewording the English keeps every
	// translation. Format and Args are what Message was written from (the
	// English format and what fills it); adapters/httpapi renders ID in the
	// caller's language with Args.
	ID         string
	Format     string
	Args       []any
	RetryAfter time.Duration // Retry-After: KindRateLimited, and KindUnavailable shedding load (busy)
	cause      error         // logged, never rendered
}

func (e *Error) Error() string {
	s := e.Kind.String()
	if e.Code != "" {
		s += " " + e.Code
	}
	s += ": " + e.Message
	if e.cause != nil {
		s += ": " + e.cause.Error()
	}
	return s
}

// Unwrap exposes the hidden cause to errors.Is/As and to the logs.
func (e *Error) Unwrap() error { return e.cause }

// Wrap attaches the internal cause; it is logged and never sent to a client.
func (e *Error) Wrap(err error) *Error { e.cause = err; return e }

// newErr writes the message from a constant English format and its
// arguments, as Format does (plural choices, then fmt.Sprintf); id is the
// catalog key of its translations.
func newErr(k Kind, code, id, format string, args ...any) *Error {
	e := &Error{Kind: k, Code: code, Message: Format(format), ID: id, Format: format}
	if len(args) > 0 {
		e.Message, e.Args = Format(format, args...), args
	}
	return e
}

func Invalid(code, id, format string, args ...any) *Error {
	return newErr(KindInvalid, code, id, format, args...)
}
func Unauthorized(code, id, format string, args ...any) *Error {
	return newErr(KindUnauthorized, code, id, format, args...)
}
func Forbidden(code, id, format string, args ...any) *Error {
	return newErr(KindForbidden, code, id, format, args...)
}
func NotFound(code, id, format string, args ...any) *Error {
	return newErr(KindNotFound, code, id, format, args...)
}
func Conflict(code, id, format string, args ...any) *Error {
	return newErr(KindConflict, code, id, format, args...)
}
func TooLarge(code, id, format string, args ...any) *Error {
	return newErr(KindTooLarge, code, id, format, args...)
}
func Unsupported(code, id, format string, args ...any) *Error {
	return newErr(KindUnsupported, code, id, format, args...)
}
func Unavailable(code, id, format string, args ...any) *Error {
	return newErr(KindUnavailable, code, id, format, args...)
}

// InsufficientStorage is a 507: the blob store is full.
func InsufficientStorage(code, id, format string, args ...any) *Error {
	return newErr(KindInsufficientStorage, code, id, format, args...)
}

// Unprocessable is a 422.
func Unprocessable(code, id, format string, args ...any) *Error {
	return newErr(KindUnprocessable, code, id, format, args...)
}

// InvalidRequest is the common 400: invalid_request.
func InvalidRequest(id, format string, args ...any) *Error {
	return newErr(KindInvalid, "invalid_request", id, format, args...)
}

// Required is the 400 of a missing field: one text in every language,
// whatever the field.
func Required(field string) *Error {
	return InvalidRequest("field.required", "%s is required", field)
}

// TooLong is the 400 of a text longer than its limit, in characters.
func TooLong(field string, max int) *Error {
	return InvalidRequest("field.tooLong", "%s must be at most {2|%[2]d character|%[2]d characters}", field, max)
}

// BadLimit is the 400 of a ?limit= that is no whole number from 1 to max.
func BadLimit(max int) *Error {
	return InvalidRequest("core.limitRange", "limit must be a whole number from 1 to %d", max)
}

// Gone is a 410.
func Gone(code, id, format string, args ...any) *Error {
	return newErr(KindGone, code, id, format, args...)
}

// RateLimited is a 429; retryAfter becomes the Retry-After header.
func RateLimited(code, id, msg string, retryAfter time.Duration) *Error {
	return &Error{Kind: KindRateLimited, Code: code, Message: msg, ID: id, Format: msg, RetryAfter: retryAfter}
}

// Internal hides err behind a generic message.
func Internal(err error) *Error {
	return &Error{Kind: KindInternal, Code: "internal_error", Message: "internal error", ID: "core.internalError", Format: "internal error", cause: err}
}

// As returns err as *Error, classifying anything else as internal.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return Internal(err)
}

// KindOf is the kind of err (KindInternal for foreign errors, including nil-safe use).
func KindOf(err error) Kind {
	if err == nil {
		return KindInternal
	}
	return As(err).Kind
}

// IsKind reports whether err is a core.Error of kind k.
func IsKind(err error, k Kind) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == k
}
