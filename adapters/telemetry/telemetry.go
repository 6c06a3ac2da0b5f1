// Package telemetry is Tandem's OpenTelemetry tracing: the tracer provider
// the standard OTEL_* variables describe (or none at all), the W3C trace
// context propagation, the outbound HTTP transport, and the helpers that put
// a span's ids in a log line. Domain modules never import it: spans are made
// by the adapters (HTTP, SQL, bus, push, mail, blobs, stores) and bootstrap
// (jobs).
//
// With no OTLP endpoint and no OTEL_TRACES_EXPORTER, tracing is off: the
// provider is a no-op and the adapters install no instrumentation at all
// (no middleware, no SQL driver wrapper, no transport), so it costs nothing.
package telemetry

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// Config is what the OTEL_* variables ask for. Only the choice of exporter
// and its endpoint are read here; the SDK reads the others itself
// (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER[_ARG],
// OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT, _COMPRESSION, OTEL_BSP_*).
type Config struct {
	// On is true when spans are exported: OTEL_TRACES_EXPORTER=otlp, or an
	// OTLP endpoint set with OTEL_TRACES_EXPORTER unset; never with
	// OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none.
	On bool
	// Endpoint is the full URL spans are posted to:
	// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, else
	// OTEL_EXPORTER_OTLP_ENDPOINT + "/v1/traces", else the SDK's default
	// (http://localhost:4318/v1/traces).
	Endpoint string
}

// Variables are the OTEL_* names LoadConfig reads (docs/configuration.md).
var Variables = []string{"OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT",
	"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"}

// LoadConfig reads the OTEL_* variables through lookup. It refuses what this
// build cannot honour with one line naming the variable: an exporter other
// than otlp or none, a protocol other than http/protobuf (the gRPC exporter
// is not linked in: send to a collector's 4318 port).
func LoadConfig(lookup func(string) (string, bool)) (Config, []error) {
	get := func(name string) string { v, _ := lookup(name); return strings.TrimSpace(v) }
	var errs []error
	var c Config
	exporter := strings.ToLower(get("OTEL_TRACES_EXPORTER"))
	base, traces := get("OTEL_EXPORTER_OTLP_ENDPOINT"), get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
	switch exporter {
	case "":
		c.On = base != "" || traces != ""
	case "otlp":
		c.On = true
	case "none":
	default:
		errs = append(errs, fmt.Errorf("OTEL_TRACES_EXPORTER: %q is not supported (otlp or none)", exporter))
	}
	for _, name := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		if p := get(name); p != "" && p != "http/protobuf" {
			errs = append(errs, fmt.Errorf("%s: %q is not supported: this build exports http/protobuf (a collector's port 4318)", name, p))
		}
	}
	if strings.EqualFold(get("OTEL_SDK_DISABLED"), "true") {
		c.On = false
	}
	switch {
	case traces != "":
		c.Endpoint = traces
	case base != "":
		c.Endpoint = strings.TrimRight(base, "/") + "/v1/traces"
	}
	if c.Endpoint != "" && !strings.HasPrefix(c.Endpoint, "http://") && !strings.HasPrefix(c.Endpoint, "https://") {
		errs = append(errs, fmt.Errorf("OTEL_EXPORTER_OTLP_ENDPOINT: %q is not an http:// or https:// URL", c.Endpoint))
	}
	return c, errs
}

// Tracing is the tracer provider of one app. Off, it is a no-op provider
// and On() is false: the adapters check On() once, when they are built, and
// install nothing.
type Tracing struct {
	tp       trace.TracerProvider
	on       bool
	shutdown func(context.Context) error
}

// Off is tracing turned off.
func Off() *Tracing { return &Tracing{tp: noop.NewTracerProvider()} }

// With traces through tp (tests: an SDK provider with an in-memory
// exporter). Its shutdown is the caller's.
func With(tp trace.TracerProvider) *Tracing { return &Tracing{tp: tp, on: true} }

// Start builds the provider cfg describes: an OTLP/HTTP exporter behind a
// batch processor, the sampler of OTEL_TRACES_SAMPLER (parent-based
// always-on by default) and the resource of OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES (service.name "tandem" by default). No request
// is made until the first batch is sent.
func Start(ctx context.Context, cfg Config, version string) (*Tracing, error) {
	if !cfg.On {
		return Off(), nil
	}
	var opts []otlptracehttp.Option
	if cfg.Endpoint != "" {
		opts = append(opts, otlptracehttp.WithEndpointURL(cfg.Endpoint))
	}
	exp, err := otlptracehttp.New(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_ENDPOINT: %w", err)
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(semconv.ServiceName("tandem"), semconv.ServiceVersion(version)),
		resource.WithFromEnv(), // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win
		resource.WithTelemetrySDK(),
	)
	if err != nil && !errors.Is(err, resource.ErrPartialResource) {
		return nil, fmt.Errorf("OTEL_RESOURCE_ATTRIBUTES: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	return &Tracing{tp: tp, on: true, shutdown: tp.Shutdown}, nil
}

// On reports whether spans are recorded at all.
func (t *Tracing) On() bool { return t != nil && t.on }

// Provider is the tracer provider (a no-op one when off).
func (t *Tracing) Provider() trace.TracerProvider {
	if t == nil {
		return noop.NewTracerProvider()
	}
	return t.tp
}

// Tracer is the named tracer of one instrumented part ("tandem/http"...).
func (t *Tracing) Tracer(name string) trace.Tracer { return t.Provider().Tracer(name) }

// Shutdown sends what is batched and stops the exporter.
func (t *Tracing) Shutdown(ctx context.Context) error {
	if t == nil || t.shutdown == nil {
		return nil
	}
	return t.shutdown(ctx)
}

// Propagator is how a trace context crosses a process: W3C traceparent and
// tracestate, and baggage. Incoming requests, bus messages and outbound
// calls all use it.
var Propagator propagation.TextMapPropagator = propagation.NewCompositeTextMapPropagator(
	propagation.TraceContext{}, propagation.Baggage{})

// Transport wraps base (nil: http.DefaultTransport) so each outbound call
// is a client span named for peer and method ("expo POST", "s3 PUT"...)
// that carries traceparent; off, base is returned as it is. The span holds
// the method, the server's host and the status, never the URL: its path
// may hold a file key (with its owner's id) or a purchase token. It ends
// when the answer's headers have arrived.
func (t *Tracing) Transport(base http.RoundTripper, peer string) http.RoundTripper {
	if !t.On() {
		return base
	}
	if base == nil {
		base = http.DefaultTransport
	}
	return tracedTransport{base: base, tracer: t.Tracer("tandem/outbound"), peer: peer}
}

type tracedTransport struct {
	base   http.RoundTripper
	tracer trace.Tracer
	peer   string
}

func (t tracedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	ctx, span := t.tracer.Start(r.Context(), t.peer+" "+r.Method, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(semconv.HTTPRequestMethodKey.String(r.Method), semconv.ServerAddress(r.URL.Hostname()),
			attribute.String("tandem.peer", t.peer)))
	defer span.End()
	r = r.Clone(ctx) // a RoundTripper must not change the caller's request
	Propagator.Inject(ctx, propagation.HeaderCarrier(r.Header))
	res, err := t.base.RoundTrip(r)
	if err != nil {
		Fail(span, err)
		return nil, err
	}
	span.SetAttributes(semconv.HTTPResponseStatusCode(res.StatusCode))
	if res.StatusCode >= 500 {
		span.SetStatus(codes.Error, http.StatusText(res.StatusCode))
	}
	return res, nil
}

// Fail marks span failed with the error's type only: an error's text may
// quote a URL, a recipient or a statement's values, none of which belongs
// in a trace (the log has the cause).
func Fail(span trace.Span, err error) {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	span.SetAttributes(semconv.ErrorTypeKey.String(fmt.Sprintf("%T", err)))
	span.SetStatus(codes.Error, "failed")
}

// Client is a copy of c (nil: a new client) whose transport is traced.
func (t *Tracing) Client(c *http.Client, peer string) *http.Client {
	if !t.On() {
		return c
	}
	var out http.Client
	if c != nil {
		out = *c
	}
	out.Transport = t.Transport(out.Transport, peer)
	return &out
}

// HashUser is the user attribute of a span: the first 16 hex digits of the
// id's SHA-256, the same for one user in every span and process, and no
// personal data (an account id is not sent to a trace backend).
func HashUser(id string) string {
	sum := sha256.Sum256([]byte("tandem-user:" + id))
	return hex.EncodeToString(sum[:8])
}

// LogFields are trace_id and span_id of ctx's span, none without a valid one.
func LogFields(ctx context.Context) []zap.Field {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return nil
	}
	return []zap.Field{zap.String("trace_id", sc.TraceID().String()), zap.String("span_id", sc.SpanID().String())}
}

// AddLogFields writes trace_id and span_id of sc into an object encoder
// (zap.Inline), nothing when sc is not valid.
func AddLogFields(enc zapcore.ObjectEncoder, sc trace.SpanContext) {
	if sc.IsValid() {
		enc.AddString("trace_id", sc.TraceID().String())
		enc.AddString("span_id", sc.SpanID().String())
	}
}
