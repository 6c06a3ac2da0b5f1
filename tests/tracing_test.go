package tests

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"go.uber.org/fx"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
	"google.golang.org/protobuf/proto"

	"tandem/adapters/bus/natsbus/natstest"
	"tandem/adapters/telemetry"
)

// Tracing (issue 35): each app gets an SDK tracer provider of its own with
// an in-memory exporter (sdk/trace/tracetest), as each process of a
// deployment has its own exporter; a trace is then read across them.

// spans is one process's exporter.
type spans struct{ exp *tracetest.InMemoryExporter }

// traced gives the app tracing through an in-memory exporter (spans are
// exported as each one ends).
func traced(t testing.TB) (option, spans) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return withFx(fx.Decorate(func() *telemetry.Tracing { return telemetry.With(tp) })), spans{exp}
}

func (s spans) all() tracetest.SpanStubs { return s.exp.GetSpans() }

// named are the spans called name (of every trace).
func (s spans) named(name string) tracetest.SpanStubs {
	var out tracetest.SpanStubs
	for _, sp := range s.all() {
		if sp.Name == name {
			out = append(out, sp)
		}
	}
	return out
}

// waitFor polls until some span satisfies ok (a span is exported when it
// ends, which may follow the answer by a moment).
func (s spans) waitFor(t *testing.T, what string, ok func(tracetest.SpanStub) bool) tracetest.SpanStub {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		for _, sp := range s.all() {
			if ok(sp) {
				return sp
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no span %s among %s", what, names(s.all()))
		}
	}
}

func names(ss tracetest.SpanStubs) string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Name)
	}
	return strings.Join(out, ", ")
}

func attr(s tracetest.SpanStub, key string) (attribute.Value, bool) {
	for _, a := range s.Attributes {
		if string(a.Key) == key {
			return a.Value, true
		}
	}
	return attribute.Value{}, false
}

// descends reports whether s has ancestor among the spans of byID (one
// trace, spans of every process), following parent ids.
func descends(s tracetest.SpanStub, ancestor trace.SpanID, byID map[trace.SpanID]tracetest.SpanStub) bool {
	for range 64 {
		p := s.Parent.SpanID()
		if !s.Parent.IsValid() {
			return false
		}
		if p == ancestor {
			return true
		}
		next, ok := byID[p]
		if !ok {
			return false
		}
		s = next
	}
	return false
}

// A message sent through one process is one trace: the HTTP request on
// process A, its SQL statements and the bus publish below it, and on
// process B (another app on the same database and NATS, with its own
// exporter) the bus delivery that fed Bob's stream, a child of A's publish.
// Nothing personal is in any of its spans: no user id, e-mail or text.
func TestTraceFollowsAMessageAcrossProcesses(t *testing.T) {
	eachSharedProfile(t, func(t *testing.T, p profile) {
		url := natstest.Start(t).URL()
		prefix := fmt.Sprintf("trace%d_%d", os.Getpid(), natsPrefixes.Add(1))
		tracedA, onA := traced(t)
		tracedB, onB := traced(t)
		a := newHarness(t, p, withNATS(url, prefix), tracedA)
		b := newHarness(t, p, withNATS(url, prefix), withEnv("TANDEM_DB", a.env["TANDEM_DB"]), tracedB)
		ann, bob := a.newUser("ann@x.io"), a.newUser("bob@x.io")
		a.pair(ann, bob)
		bobS := b.openStream(bob, "")

		at := a.Clock.Now().UnixMilli()
		id := a.sendMessage(ann, "a secret between us")
		bobS.expectEvent(time.Second, "message.sent", messageJSON(id, "a secret between us", ann, at))

		send := onA.waitFor(t, "POST /api/messages/send", func(s tracetest.SpanStub) bool {
			return s.Name == "POST /api/messages/send" && s.SpanKind == trace.SpanKindServer
		})
		tid := send.SpanContext.TraceID()
		if v, _ := attr(send, "http.response.status_code"); v.AsInt64() != 200 {
			t.Fatalf("the request's span has status %v", v.String())
		}
		if v, _ := attr(send, "http.route"); v.AsString() != "/api/messages/send" {
			t.Fatalf("the request's span has route %q", v.String())
		}
		receive := onB.waitFor(t, "bus receive live in the request's trace on B", func(s tracetest.SpanStub) bool {
			return s.Name == "bus receive live" && s.SpanContext.TraceID() == tid
		})
		if receive.SpanKind != trace.SpanKindConsumer || !receive.Parent.IsRemote() {
			t.Fatalf("B's receive span: kind %v, remote parent %v", receive.SpanKind, receive.Parent.IsRemote())
		}

		// the tree, across both processes
		tree := map[trace.SpanID]tracetest.SpanStub{}
		var inTrace tracetest.SpanStubs
		for _, s := range append(onA.all(), onB.all()...) {
			if s.SpanContext.TraceID() == tid {
				tree[s.SpanContext.SpanID()] = s
				inTrace = append(inTrace, s)
			}
		}
		root := send.SpanContext.SpanID()
		if send.Parent.IsValid() {
			t.Fatalf("the request's span has a parent %s: the client sent no traceparent", send.Parent.SpanID())
		}
		publish, ok := tree[receive.Parent.SpanID()]
		if !ok || publish.Name != "bus publish live" || publish.SpanKind != trace.SpanKindProducer {
			t.Fatalf("B's receive span's parent is %q, want A's bus publish live; the trace: %s", publish.Name, names(inTrace))
		}
		if !descends(publish, root, tree) || !descends(receive, root, tree) {
			t.Fatalf("publish and receive are not below the request; the trace: %s", names(inTrace))
		}
		var statements int
		for _, s := range inTrace {
			if strings.HasPrefix(s.Name, "sql.") {
				if !descends(s, root, tree) {
					t.Fatalf("SQL span %s is not below the request", s.Name)
				}
				if s.SpanKind != trace.SpanKindClient {
					t.Fatalf("SQL span %s of kind %v", s.Name, s.SpanKind)
				}
				statements++
			}
		}
		if statements == 0 {
			t.Fatalf("no SQL span in the request's trace: %s", names(inTrace))
		}
		for _, s := range inTrace {
			for _, kv := range s.Attributes {
				v := kv.Value.String()
				for _, secret := range []string{ann.ID, bob.ID, "ann@x.io", "bob@x.io", "a secret between us", ann.Token} {
					if strings.Contains(v, secret) {
						t.Fatalf("span %s holds %s=%q, personal data", s.Name, kv.Key, v)
					}
				}
			}
		}
		if v, ok := attr(send, "tandem.user.hash"); !ok || v.AsString() != telemetry.HashUser(ann.ID) {
			t.Fatalf("the request's span has user hash %q, want %q", v.String(), telemetry.HashUser(ann.ID))
		}
	})
}

// A request that carries a W3C traceparent continues that trace: its span
// is a child of the caller's; without one, or with a malformed one, it
// starts a trace of its own. The span is named by the route pattern.
func TestTraceparentIsContinued(t *testing.T) {
	parallel(t)
	tr, got := traced(t)
	h := newHarness(t, profile{name: "memory"}, tr)
	ann := h.newUser("ann@x.io")
	path := "/api/users/user/" + ann.ID
	const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	cases := []struct {
		name, header string
		continued    bool
	}{
		{"a sampled caller", "00-" + traceID + "-" + parentID + "-01", true},
		{"no traceparent", "", false},
		{"a malformed one", "00-" + traceID + "-zz-01", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := len(got.named("GET /api/users/user/:userId"))
			headers := map[string]string{}
			if tc.header != "" {
				headers["traceparent"] = tc.header
			}
			expect(t, h.do(req{Method: "GET", Path: path, Token: ann.Token, Headers: headers}), 200, "")
			var s tracetest.SpanStub
			for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(5 * time.Millisecond) {
				if all := got.named("GET /api/users/user/:userId"); len(all) > before {
					s = all[len(all)-1]
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("no span for the request among %s", names(got.all()))
				}
			}
			continued := s.SpanContext.TraceID().String() == traceID && s.Parent.SpanID().String() == parentID && s.Parent.IsRemote()
			if continued != tc.continued {
				t.Fatalf("trace %s parent %s (remote %v): continued %v, want %v", s.SpanContext.TraceID(), s.Parent.SpanID(),
					s.Parent.IsRemote(), continued, tc.continued)
			}
			if !tc.continued && s.Parent.IsValid() {
				t.Fatalf("a request without a valid traceparent has parent %s", s.Parent.SpanID())
			}
		})
	}
}

// Every request-scoped log line carries the trace and span ids of the
// request's span (and the request id, as before); an untraced app's lines
// carry none.
func TestTraceIDsInRequestLogs(t *testing.T) {
	parallel(t)
	tr, got := traced(t)
	core, logs := observer.New(zap.InfoLevel)
	h := newHarness(t, profile{name: "memory"}, tr, withFx(fx.Decorate(func() *zap.Logger { return zap.New(core) })))
	ann := h.newUser("ann@x.io")
	const traceID = "0af7651916cd43dd8448eb211c80319c"
	r := h.do(req{Method: "GET", Path: "/api/users/user/" + ann.ID, Token: ann.Token,
		Headers: map[string]string{"traceparent": "00-" + traceID + "-b7ad6b7169203331-01", "X-Request-Id": "log-me"}})
	expect(t, r, 200, "")
	span := got.waitFor(t, "of the request", func(s tracetest.SpanStub) bool { return s.SpanContext.TraceID().String() == traceID })
	var line map[string]any
	for deadline := time.Now().Add(2 * time.Second); line == nil; time.Sleep(5 * time.Millisecond) {
		for _, e := range logs.FilterMessage("request").AllUntimed() {
			if m := e.ContextMap(); m["request_id"] == "log-me" {
				line = m
			}
		}
		if line == nil && time.Now().After(deadline) {
			t.Fatal("no access log line for the request")
		}
	}
	if line["trace_id"] != traceID || line["span_id"] != span.SpanContext.SpanID().String() {
		t.Fatalf("log line has trace_id %v span_id %v, want %s %s", line["trace_id"], line["span_id"], traceID, span.SpanContext.SpanID())
	}

	plainCore, plainLogs := observer.New(zap.InfoLevel)
	plain := newHarness(t, profile{name: "memory"}, withFx(fx.Decorate(func() *zap.Logger { return zap.New(plainCore) })))
	expect(t, plain.do(req{Method: "GET", Path: "/api/users/user/" + ann.ID, Headers: map[string]string{"traceparent": "00-" + traceID + "-b7ad6b7169203331-01"}}), 401, "")
	for deadline := time.Now().Add(2 * time.Second); plainLogs.FilterMessage("request").Len() == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no access log line without tracing")
		}
	}
	for _, e := range plainLogs.FilterMessage("request").AllUntimed() {
		if _, ok := e.ContextMap()["trace_id"]; ok {
			t.Fatalf("an untraced app logged a trace id: %v", e.ContextMap())
		}
	}
}

// The health probes (/healthz, /readyz), asked every few seconds by load
// balancers and orchestrators, make no span and no access log line at the
// default level; at debug level they are logged. Another request of the
// same app is traced and logged, so the filter is the probes' alone.
func TestProbesAreNotLoggedNorTraced(t *testing.T) {
	parallel(t)
	tr, got := traced(t)
	infoCore, infoLogs := observer.New(zap.InfoLevel)
	h := newHarness(t, profile{name: "memory"}, tr, withFx(fx.Decorate(func() *zap.Logger { return zap.New(infoCore) })))
	for _, path := range []string{"/healthz", "/readyz", "/READYZ", "/healthz/"} {
		expect(t, h.do(req{Method: "GET", Path: path, Headers: map[string]string{"X-Request-Id": "probe"}}), 200, "")
	}
	expect(t, h.do(req{Method: "GET", Path: "/openapi.json", Headers: map[string]string{"X-Request-Id": "other"}}), 200, "")
	got.waitFor(t, "of the other request", func(s tracetest.SpanStub) bool { return s.Name == "GET /openapi.json" })
	for deadline := time.Now().Add(2 * time.Second); len(requestLines(infoLogs, "other")) == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no access log line for the other request")
		}
	}
	var server []string // the jobs make spans of their own
	for _, s := range got.all() {
		if s.SpanKind == trace.SpanKindServer {
			server = append(server, s.Name)
		}
	}
	if !slices.Equal(server, []string{"GET /openapi.json"}) {
		t.Fatalf("server spans %v, want the other request's only", server)
	}
	if probes := requestLines(infoLogs, "probe"); len(probes) != 0 {
		t.Fatalf("probes logged at info level: %v", probes[0].ContextMap())
	}

	debugCore, debugLogs := observer.New(zap.DebugLevel)
	d := newHarness(t, profile{name: "memory"}, withFx(fx.Decorate(func() *zap.Logger { return zap.New(debugCore) })))
	expect(t, d.do(req{Method: "GET", Path: "/readyz", Headers: map[string]string{"X-Request-Id": "probe"}}), 200, "")
	for deadline := time.Now().Add(2 * time.Second); len(requestLines(debugLogs, "probe")) == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no debug log line for a probe at TANDEM_LOG_LEVEL=debug")
		}
	}
	if e := requestLines(debugLogs, "probe")[0]; e.Level != zap.DebugLevel {
		t.Fatalf("a probe logged at %s", e.Level)
	}
}

// requestLines are the access log lines of the requests with that X-Request-Id.
func requestLines(logs *observer.ObservedLogs, requestID string) []observer.LoggedEntry {
	var out []observer.LoggedEntry
	for _, e := range logs.FilterMessage("request").AllUntimed() {
		if e.ContextMap()["request_id"] == requestID {
			out = append(out, e)
		}
	}
	return out
}

// otlpReceiver is a local OTLP/HTTP endpoint: it keeps every export.
type otlpReceiver struct {
	mu      sync.Mutex
	paths   []string
	exports []*collectortrace.ExportTraceServiceRequest
	bad     []string
}

func (o *otlpReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	o.mu.Lock()
	defer o.mu.Unlock()
	o.paths = append(o.paths, r.Method+" "+r.URL.Path)
	var req collectortrace.ExportTraceServiceRequest
	if err != nil || r.Header.Get("Content-Type") != "application/x-protobuf" || proto.Unmarshal(body, &req) != nil {
		o.bad = append(o.bad, r.Header.Get("Content-Type"))
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	o.exports = append(o.exports, &req)
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(nil)
}

// With OTEL_EXPORTER_OTLP_ENDPOINT set, spans are posted to its /v1/traces
// as OTLP protobuf, under the service name tandem; stopping the app sends
// what the batch still held.
func TestSpansReachAnOTLPReceiver(t *testing.T) {
	parallel(t)
	recv := &otlpReceiver{}
	srv := httptest.NewServer(recv)
	t.Cleanup(srv.Close)
	h := newHarness(t, profile{name: "memory"}, withEnv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL))
	ann := h.newUser("ann@x.io")
	expect(t, h.get("/api/users/user/"+ann.ID, ann.Token), 200, "")
	if err := h.app.Stop(context.Background()); err != nil { // flushes the batch
		t.Fatal(err)
	}
	recv.mu.Lock()
	defer recv.mu.Unlock()
	if len(recv.bad) > 0 || len(recv.exports) == 0 {
		t.Fatalf("exports: %d good, bad content types %v, requests %v", len(recv.exports), recv.bad, recv.paths)
	}
	for _, p := range recv.paths {
		if p != "POST /v1/traces" {
			t.Fatalf("the exporter sent %s", p)
		}
	}
	var service string
	var spans []string
	for _, e := range recv.exports {
		for _, rs := range e.ResourceSpans {
			for _, a := range rs.Resource.GetAttributes() {
				if a.Key == "service.name" {
					service = a.Value.GetStringValue()
				}
			}
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					spans = append(spans, s.Name)
				}
			}
		}
	}
	if want := "tandem"; service != want && os.Getenv("OTEL_SERVICE_NAME") == "" {
		t.Fatalf("service.name %q, want %q", service, want)
	}
	if !slices.Contains(spans, "GET /api/users/user/:userId") || !slices.Contains(spans, "POST /api/auth/signup/email") {
		t.Fatalf("received spans %v", spans)
	}
}

// BenchmarkEventGetTraced is BenchmarkEventGet with every request traced
// and sampled (the SDK's default sampler, a batch processor as in
// production, an exporter that discards): the cost of tracing on, beside
// BenchmarkEventGet's cost of it off (BENCHMARKS.md).
func BenchmarkEventGetTraced(b *testing.B) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
	b.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	benchScenario(b, func(h *harness) scenario {
		u := h.newUser("bench@x.io")
		ids := seedEvents(h, u)
		return scenario{req: GET(eventPath(u, ids[benchEvents/2])).by(u), status: 200}
	}, withFx(fx.Decorate(func() *telemetry.Tracing { return telemetry.With(tp) })))
}
