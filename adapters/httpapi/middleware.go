package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"go.uber.org/zap"

	"tandem/core"
)

const headerRequestID = "X-Request-Id"
const localRequestID = "requestID"

// maxRequestIDLen bounds a client's X-Request-Id: ids travel into every log
// line and back out in a header.
const maxRequestIDLen = 64

// requestID keeps a client's X-Request-Id (for tracing through a proxy) when
// it is 1–64 of [A-Za-z0-9._-], else makes one, and echoes it on the response.
func requestID(c *fiber.Ctx) error {
	id := c.Get(headerRequestID)
	if !validRequestID(id) {
		var b [12]byte
		_, _ = rand.Read(b[:])
		id = hex.EncodeToString(b[:])
	}
	c.Locals(localRequestID, id)
	c.Set(headerRequestID, id)
	return c.Next()
}

func validRequestID(id string) bool {
	if id == "" || len(id) > maxRequestIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		if b := id[i]; !(b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '.' || b == '_' || b == '-') {
			return false
		}
	}
	return true
}

// apiHeaders marks every /api/ answer, errors and unknown paths included:
// answers are private to the caller (no cache keeps them), are never
// content-sniffed, and leak no Referer when the app follows a link.
func apiHeaders(c *fiber.Ctx) error {
	if isAPI(c.Path()) {
		c.Set(fiber.HeaderCacheControl, "no-store")
		c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
		c.Set(fiber.HeaderReferrerPolicy, "no-referrer")
	}
	return c.Next()
}

// isAPI matches the way Fiber routes: case-insensitively.
func isAPI(path string) bool {
	return len(path) >= len("/api/") && strings.EqualFold(path[:len("/api/")], "/api/") || strings.EqualFold(path, "/api")
}

// RequestIDOf is the request's id, as requestID kept or made it.
func RequestIDOf(c *fiber.Ctx) string {
	id, _ := c.Locals(localRequestID).(string)
	return id
}

// accessLog renders a failed chain through the error handler itself, so the
// logged status is the one sent, then writes one line per request.
func accessLog(log *zap.Logger, m *Metrics) fiber.Handler {
	return func(c *fiber.Ctx) error {
		start := time.Now()
		if err := c.Next(); err != nil {
			if herr := c.App().ErrorHandler(c, err); herr != nil {
				_ = c.SendStatus(fiber.StatusInternalServerError)
			}
		}
		status := c.Response().StatusCode()
		m.observe(c, status, time.Since(start))
		// Checked first: below the level, or sampled out under load, the
		// line's fields are never built.
		ce := log.Check(zap.InfoLevel, "request")
		if ce == nil {
			return nil
		}
		fields := []zap.Field{
			logIDs(c),
			zap.String("method", c.Method()),
			zap.String("path", c.Path()),
			zap.Int("status", status),
			zap.Duration("duration", time.Since(start)),
			zap.String("ip", ClientIP(c)),
		}
		if p, ok := core.PrincipalFrom(c.UserContext()); ok {
			fields = append(fields, zap.String("user_id", p.UserID))
		}
		ce.Write(fields...)
		return nil
	}
}

// recoverPanics turns a handler panic into a 500 with the error body; the
// stack goes to the log through the error's hidden cause.
func recoverPanics(c *fiber.Ctx) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = core.Internal(fmt.Errorf("panic: %v\n%s", r, debug.Stack()))
		}
	}()
	return c.Next()
}

// requestDeadline bounds every request's work, database queries included
// (they all run with c.UserContext()).
func requestDeadline(d time.Duration) fiber.Handler {
	return func(c *fiber.Ctx) error {
		ctx, cancel := context.WithTimeout(c.UserContext(), d)
		defer cancel()
		c.SetUserContext(ctx)
		return c.Next()
	}
}
