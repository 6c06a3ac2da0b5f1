package web

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"

	"github.com/gofiber/fiber/v2"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"tandem/adapters/telemetry"
	"tandem/core"
)

// HeaderRequestID carries a request's id, in and out.
const HeaderRequestID = "X-Request-Id"

const localRequestID = "requestID"

// MaxRequestIDLen bounds a client's X-Request-Id: ids travel into every log
// line and back out in a header.
const MaxRequestIDLen = 64

// RequestIDPattern is validRequestID's rule as the API document states it.
var RequestIDPattern = `^[A-Za-z0-9._-]{1,` + strconv.Itoa(MaxRequestIDLen) + `}$`

// Rules are the patterns the API document names ("web.RequestIDPattern").
var Rules = core.Rules{Patterns: map[string]string{"RequestIDPattern": RequestIDPattern}}

// RequestID keeps a client's X-Request-Id (for tracing through a proxy) when
// it is 1–64 of [A-Za-z0-9._-], else makes one, and echoes it on the response.
func RequestID(c *fiber.Ctx) error {
	id := c.Get(HeaderRequestID)
	if !validRequestID(id) {
		var b [12]byte
		_, _ = rand.Read(b[:])
		id = hex.EncodeToString(b[:])
	}
	c.Locals(localRequestID, id)
	c.Set(HeaderRequestID, id)
	return c.Next()
}

func validRequestID(id string) bool {
	if id == "" || len(id) > MaxRequestIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		if b := id[i]; !(b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '.' || b == '_' || b == '-') {
			return false
		}
	}
	return true
}

// RequestIDOf is the request's id, as RequestID kept or made it.
func RequestIDOf(c *fiber.Ctx) string {
	id, _ := c.Locals(localRequestID).(string)
	return id
}

// LogIDs is what names a request in its log lines: the request id, and the
// trace and span ids when the request is traced.
// The values are read now: a core may encode the field after the request's
// context is recycled.
func LogIDs(c *fiber.Ctx) zap.Field {
	return zap.Inline(requestRef{id: RequestIDOf(c), span: trace.SpanContextFromContext(c.UserContext())})
}

type requestRef struct {
	id   string
	span trace.SpanContext
}

func (r requestRef) MarshalLogObject(enc zapcore.ObjectEncoder) error {
	enc.AddString("request_id", r.id)
	telemetry.AddLogFields(enc, r.span)
	return nil
}
