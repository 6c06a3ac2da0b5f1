package httpapi

import (
	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"tandem/adapters/telemetry"
	"tandem/core"
)

// traceRequests makes each request a server span, continuing the caller's
// traceparent when it sent one. The span is named by the route pattern once
// routing has picked it ("GET /api/users/user/:userId"), never the raw path;
// it holds the method, the route, the status and the caller's hashed user
// id: no path, address, query or body, nothing personal. Handlers' work
// (SQL, bus, outbound calls) joins it through c.UserContext(). The health
// probes are not traced (isProbe).
func traceRequests(t *telemetry.Tracing) fiber.Handler {
	tracer := t.Tracer("tandem/http")
	return func(c *fiber.Ctx) error {
		if isProbe(c.Path()) {
			return c.Next()
		}
		ctx := telemetry.Propagator.Extract(c.UserContext(), requestHeaders{&c.Request().Header})
		method := c.Method()
		ctx, span := tracer.Start(ctx, method, trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(semconv.HTTPRequestMethodKey.String(method)))
		defer span.End()
		c.SetUserContext(ctx)
		err := c.Next() // accessLog, after this, has rendered any error
		status := c.Response().StatusCode()
		route := routePattern(c)
		span.SetName(method + " " + route)
		span.SetAttributes(semconv.HTTPRoute(route), semconv.HTTPResponseStatusCode(status))
		if p, ok := core.PrincipalFrom(c.UserContext()); ok {
			span.SetAttributes(attribute.String("tandem.user.hash", telemetry.HashUser(p.UserID)))
		}
		if status >= 500 {
			span.SetStatus(codes.Error, "")
		}
		return err
	}
}

// routePattern is the route the router matched, "unmatched" when none did.
func routePattern(c *fiber.Ctx) string {
	if r := c.Route(); r != nil && r.Path != "/" && r.Path != "" {
		return r.Path
	}
	return "unmatched"
}

// requestHeaders reads a request's headers for the propagator.
type requestHeaders struct{ h *fasthttp.RequestHeader }

func (r requestHeaders) Get(key string) string { return string(r.h.Peek(key)) }
func (r requestHeaders) Set(key, value string) { r.h.Set(key, value) }
func (r requestHeaders) Keys() []string {
	var keys []string
	r.h.VisitAll(func(k, _ []byte) { keys = append(keys, string(k)) })
	return keys
}
