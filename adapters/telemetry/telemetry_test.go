package telemetry

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

func TestLoadConfig(t *testing.T) {
	cases := []struct {
		name     string
		env      map[string]string
		on       bool
		endpoint string
		err      string // a substring of the one error, "" for none
	}{
		{name: "nothing set: off", env: map[string]string{}},
		{name: "an endpoint turns it on", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318/"},
			on: true, endpoint: "http://collector:4318/v1/traces"},
		{name: "the traces endpoint is taken as it is", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://a:4318",
			"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "https://b/otlp/traces"}, on: true, endpoint: "https://b/otlp/traces"},
		{name: "otlp without an endpoint: the SDK's default", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, on: true},
		{name: "none wins over an endpoint", env: map[string]string{"OTEL_TRACES_EXPORTER": "none",
			"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, endpoint: "http://collector:4318/v1/traces"},
		{name: "the SDK disabled", env: map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"},
			endpoint: "http://c:4318/v1/traces"},
		{name: "http/protobuf is accepted", env: map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
			"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, on: true, endpoint: "http://c:4318/v1/traces"},
		{name: "grpc is refused", env: map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
			"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4317"}, on: true, endpoint: "http://c:4317/v1/traces",
			err: "OTEL_EXPORTER_OTLP_PROTOCOL: \"grpc\" is not supported"},
		{name: "another exporter is refused", env: map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"},
			err: "OTEL_TRACES_EXPORTER: \"zipkin\" is not supported"},
		{name: "an endpoint without a scheme is refused", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4318"},
			on: true, endpoint: "collector:4318/v1/traces", err: "not an http:// or https:// URL"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, errs := LoadConfig(func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok })
			if c.On != tc.on || c.Endpoint != tc.endpoint {
				t.Fatalf("got on=%v endpoint=%q, want on=%v endpoint=%q", c.On, c.Endpoint, tc.on, tc.endpoint)
			}
			switch {
			case tc.err == "" && len(errs) > 0:
				t.Fatalf("errors %v", errs)
			case tc.err != "" && (len(errs) != 1 || !strings.Contains(errs[0].Error(), tc.err)):
				t.Fatalf("errors %v, want one with %q", errs, tc.err)
			}
		})
	}
}

// Off, nothing is recorded and nothing is wrapped.
func TestOffInstallsNothing(t *testing.T) {
	tr, err := Start(context.Background(), Config{}, "test")
	if err != nil || tr.On() {
		t.Fatalf("off: on=%v err=%v", tr.On(), err)
	}
	_, span := tr.Tracer("x").Start(context.Background(), "y")
	if span.SpanContext().IsValid() || span.IsRecording() {
		t.Fatal("an off tracer made a real span")
	}
	if tr.Transport(nil, "expo") != nil || tr.Client(nil, "expo") != nil {
		t.Fatal("off, the transport was wrapped")
	}
	if LogFields(context.Background()) != nil {
		t.Fatal("log fields without a span")
	}
}

func TestHashUserIsStableAndOpaque(t *testing.T) {
	a, b := HashUser("0190-user-a"), HashUser("0190-user-b")
	if a == b || a != HashUser("0190-user-a") || len(a) != 16 || strings.Contains(a, "user") {
		t.Fatalf("hashes %q %q", a, b)
	}
}

// An outbound call is a client span that the callee can continue (it gets
// traceparent), and the span holds no URL: paths carry file keys and
// purchase tokens.
func TestTransportSpansCarryNoURL(t *testing.T) {
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Get("traceparent")
		w.WriteHeader(http.StatusBadGateway)
	}))
	defer srv.Close()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	tr := With(tp)
	ctx, parent := tr.Tracer("test").Start(context.Background(), "parent")
	req, _ := http.NewRequestWithContext(ctx, "PUT", srv.URL+"/bucket/user-0190-secret/key?token=t0k3n", nil)
	res, err := tr.Client(&http.Client{}, "s3").Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	parent.End()
	if req.Header.Get("traceparent") != "" {
		t.Fatal("the caller's request was changed")
	}
	var span tracetest.SpanStub
	for _, s := range exp.GetSpans() {
		if s.Name == "s3 PUT" {
			span = s
		}
	}
	if span.Name == "" || span.Parent.SpanID() != parent.SpanContext().SpanID() {
		t.Fatalf("spans %v", exp.GetSpans())
	}
	if !strings.Contains(got, span.SpanContext.SpanID().String()) {
		t.Fatalf("the server got traceparent %q, want the client span %s", got, span.SpanContext.SpanID())
	}
	if span.Status.Code != codes.Error {
		t.Fatalf("a 502 left status %v", span.Status)
	}
	for _, a := range span.Attributes {
		if v := a.Value.String(); strings.Contains(v, "secret") || strings.Contains(v, "t0k3n") || strings.Contains(v, "/bucket") {
			t.Fatalf("the span holds %s=%q", a.Key, v)
		}
	}
}
