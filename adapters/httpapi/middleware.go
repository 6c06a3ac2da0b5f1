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

// requestID keeps a sane incoming X-Request-Id (for tracing through a proxy)
// or makes one, and echoes it on the response.
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
	if id == "" || len(id) > 128 {
		return false
	}
	for _, r := range id {
		if r < 0x21 || r > 0x7e {
			return false
		}
	}
	return true
}

func requestIDOf(c *fiber.Ctx) string {
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
		fields := []zap.Field{
			zap.String("request_id", requestIDOf(c)),
			zap.String("method", c.Method()),
			zap.String("path", c.Path()),
			zap.Int("status", status),
			zap.Duration("duration", time.Since(start)),
			zap.String("ip", c.IP()),
		}
		if p, ok := core.PrincipalFrom(c.UserContext()); ok {
			fields = append(fields, zap.String("user_id", p.UserID))
		}
		log.Info("request", fields...)
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

// limitBody refuses bodies over max on every route except the image upload
// (a multipart POST to /api/users/user/{userId}/images), whose bound is the
// server-wide BodyLimit sized for it.
func limitBody(max int) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if isUpload(c) {
			return c.Next()
		}
		if n := c.Request().Header.ContentLength(); n > max || len(c.Request().Body()) > max {
			return core.TooLarge("payload_too_large", fmt.Sprintf("request body larger than %d bytes", max))
		}
		return c.Next()
	}
}

func isMultipart(c *fiber.Ctx) bool {
	return strings.HasPrefix(c.Get(fiber.HeaderContentType), fiber.MIMEMultipartForm)
}

func isUpload(c *fiber.Ctx) bool {
	if c.Method() != fiber.MethodPost || !isMultipart(c) {
		return false
	}
	parts := strings.Split(strings.TrimSuffix(c.Path(), "/"), "/") // "", api, users, user, {id}, images
	return len(parts) == 6 && parts[1] == "api" && parts[2] == "users" && parts[3] == "user" && parts[5] == "images"
}
