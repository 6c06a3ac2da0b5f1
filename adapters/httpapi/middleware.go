package httpapi

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"go.uber.org/zap"

	"tandem/adapters/web"
	"tandem/core"
)

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

// isProbe matches the health probes, /healthz and /readyz: a load balancer
// or an orchestrator asks them every few seconds, so their lines would
// drown the log and their spans the traces. They are logged at debug level
// only (TANDEM_LOG_LEVEL=debug shows them), never traced; the request
// metrics still count them.
// Matched as Fiber routes: case-insensitively, a trailing slash allowed.
func isProbe(path string) bool {
	path = strings.TrimSuffix(path, "/")
	return strings.EqualFold(path, "/healthz") || strings.EqualFold(path, "/readyz")
}

// accessLog renders a failed chain through the error handler itself, so the
// logged status is the one sent, then writes one line per request (probes
// at debug level: isProbe).
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
		level := zap.InfoLevel
		if isProbe(c.Path()) {
			level = zap.DebugLevel
		}
		ce := log.Check(level, "request")
		if ce == nil {
			return nil
		}
		fields := []zap.Field{
			web.LogIDs(c),
			zap.String("method", c.Method()),
			zap.String("path", c.Path()),
			zap.Int("status", status),
			zap.Duration("duration", time.Since(start)),
			zap.String("ip", web.ClientIP(c)),
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
