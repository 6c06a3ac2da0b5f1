// This file holds the metrics tests: the console's Traffic page (this
// process's last minutes per route) and the series of issue 35 on one
// traced process.

package tests

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/fx"

	"tandem/adapters/bus/natsbus/natstest"
	"tandem/adapters/httpapi"
	"tandem/adapters/sqlstore"
)

// The console's Traffic page draws this process's last minutes per route
// as inline SVG, with no script: the counts, the errors, the percentiles.
func TestConsoleTrafficPage(t *testing.T) {
	parallel(t)
	h := newHarness(t, profile{name: "memory"}, withAdmins(bossEmail))
	h.newUser(bossEmail)
	ann := h.newUser("ann@x.io")
	for range 3 {
		expect(t, h.get("/api/users/user/"+ann.ID, ann.Token), 200, "")
	}
	c := h.console(t)
	c.mustSignIn(bossEmail)
	r := c.get("/admin/traffic")
	expectPage(t, r, 200, "Traffic")
	page := string(r.Body)
	for _, want := range []string{`<svg id="traffic-chart"`, "<code>GET /api/users/user/:userId</code></td><td>3</td>",
		`<polyline points=`, `<svg class="spark"`} {
		if !strings.Contains(page, want) {
			t.Fatalf("the traffic page lacks %q:\n%s", want, page)
		}
	}
	if strings.Contains(page, `<rect class="err"`) {
		t.Fatal("a 5xx bar with no 5xx answered")
	}
	if strings.Contains(strings.ToLower(page), "<script") {
		t.Fatal("the traffic page has a script")
	}
}

// The series of issue 35, on one traced process on SQLite and NATS: the
// latency histogram carries the trace id of a sampled request as its
// exemplar (OpenMetrics), and the SQL pool, the bus's lag and drops, the
// mail outbox and the push failures by provider are exported. A push to a
// refusing Expo is a span of the request that pushed, marked failed; a run
// of the mail job is a trace of its own with its SQL below it.
func TestMetricsOfTracedProcess(t *testing.T) {
	parallel(t)
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(refusing.Close)
	tr, got := traced(t)
	var metrics *httpapi.MetricsServer
	h := newHarness(t, profile{name: "sqlite", sql: sqlstore.SQLite}, tr, withNATS(natstest.Start(t).URL()),
		withEnv("TANDEM_METRICS_ADDR", "127.0.0.1:0"), withFx(fx.Populate(&metrics)),
		withEnv("TANDEM_PUSH", "expo?url="+refusing.URL+"/--/api/v2/push/send"), withEnv("TANDEM_PUSH_TIMEOUT", "2s"))
	ann, bob := h.newUser("ann@x.io"), h.newUser("bob@x.io")
	h.pair(ann, bob)
	expect(t, h.post("/api/users/user/"+bob.ID+"/devices", bob.Token,
		map[string]any{"token": "ExponentPushToken[bob]", "platform": "ios", "provider": "expo"}), 200, "")
	r := h.post("/api/users/user/"+bob.ID+"/send-test-notification", bob.Token,
		map[string]any{"title": "Hi", "message": "test", "category": "systemUpdates"})
	expect(t, r, 200, "")
	push := got.waitFor(t, "push expo", func(s tracetest.SpanStub) bool { return s.Name == "push expo" })
	test := got.waitFor(t, "of the test push", func(s tracetest.SpanStub) bool {
		return s.Name == "POST /api/users/user/:userId/send-test-notification"
	})
	if push.SpanContext.TraceID() != test.SpanContext.TraceID() || push.Status.Code.String() != "Error" {
		t.Fatalf("push span in trace %s (request's %s), status %v", push.SpanContext.TraceID(), test.SpanContext.TraceID(), push.Status)
	}
	outbound := got.waitFor(t, "expo POST", func(s tracetest.SpanStub) bool { return s.Name == "expo POST" })
	if outbound.Parent.SpanID() != push.SpanContext.SpanID() || outbound.SpanKind != trace.SpanKindClient {
		t.Fatalf("the call to Expo is not a client child of the push span: parent %s", outbound.Parent.SpanID())
	}
	// the background jobs: each run a trace of its own, its work below it
	job := got.waitFor(t, "job send mail", func(s tracetest.SpanStub) bool {
		if s.Name != "job send mail" {
			return false
		}
		v, _ := attr(s, "tandem.job.items")
		return v.AsInt64() > 0 // the sign-up codes' mail
	})
	if job.Parent.IsValid() {
		t.Fatalf("a job run has parent %s", job.Parent.SpanID())
	}
	got.waitFor(t, "of SQL below the job run", func(s tracetest.SpanStub) bool {
		return strings.HasPrefix(s.Name, "sql.") && s.Parent.SpanID() == job.SpanContext.SpanID()
	})
	for _, s := range got.all() {
		for _, a := range s.Attributes {
			if a.Key == "url.full" || strings.Contains(a.Value.String(), "/api/v2/push") {
				t.Fatalf("span %s holds the URL: %s=%q", s.Name, a.Key, a.Value.String())
			}
		}
	}
	h.sendMessage(ann, "lag me")

	req, _ := http.NewRequest("GET", "http://"+metrics.Addr()+"/metrics", nil)
	req.Header.Set("Accept", "application/openmetrics-text; version=1.0.0")
	var body string
	wants := []string{
		`trace_id="` + test.SpanContext.TraceID().String() + `"`, // an exemplar of the request's bucket
		`go_sql_open_connections{db_name="sqlite"}`,
		`tandem_bus_lag_seconds_count{topic="live"}`,
		`tandem_bus_dropped_total 0`,
		`tandem_mail_outbox_depth `,
		`tandem_mail_outbox_oldest_age_seconds `,
		`tandem_push_failures_total{provider="expo",reason="failed"} `, // the test push, and the message's activity push
	}
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		body = string(b)
		missing := ""
		for _, w := range wants {
			if !strings.Contains(body, w) {
				missing = w
			}
		}
		if missing == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("metrics lack %s:\n%s", missing, body)
		}
	}
}
