package tests

import (
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
	"go.uber.org/fx"

	"tandem/adapters/httpapi"
	"tandem/adapters/web"
)

// probes adds test-only routes: a JSON echo and a handler that panics.
var probes = fx.Provide(web.AsRoute(func() web.Route {
	return web.RouteFunc(func(r fiber.Router) {
		r.Post("/test/echo", func(c *fiber.Ctx) error {
			var in struct {
				Name string `json:"name"`
				N    int    `json:"n"`
			}
			if err := httpapi.BindJSON(c, &in); err != nil {
				return err
			}
			return c.JSON(in)
		})
		r.Get("/test/panic", func(*fiber.Ctx) error { panic("boom") })
	})
}))

func TestHealthReadinessAndDocument(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		expect(t, h.get("/healthz", ""), 200, `{"status":"ok"}`)
		expect(t, h.get("/readyz", ""), 200, `{"status":"ready"}`)
		doc := h.get("/openapi.json", "")
		expect(t, doc, 200, "")
		if v := doc.JSON(t)["openapi"]; v != "3.1.0" {
			t.Fatalf("openapi version %v", v)
		}
	})
}

func TestFrameworkErrorsUseTheErrorBody(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		cases := []struct {
			name   string
			r      req
			status int
			body   string
		}{
			{"unknown route", req{Method: "GET", Path: "/api/nothing-here"}, 404,
				`{"success":false,"error":"no such route","code":"not_found","message":"no such route"}`},
			{"wrong method", req{Method: "DELETE", Path: "/healthz"}, 405,
				`{"success":false,"error":"method not allowed on this route","code":"method_not_allowed","message":"method not allowed on this route"}`},
			{"malformed JSON", req{Method: "POST", Path: "/test/echo", Body: `{"name":`}, 400,
				`{"success":false,"error":"malformed JSON","code":"invalid_request","message":"malformed JSON"}`},
			{"wrong type", req{Method: "POST", Path: "/test/echo", Body: `{"name":5}`}, 400,
				`{"success":false,"error":"field name must be a string","code":"invalid_request","message":"field name must be a string"}`},
			{"not an object", req{Method: "POST", Path: "/test/echo", Body: `[1,2]`}, 400,
				`{"success":false,"error":"request body must be a JSON object","code":"invalid_request","message":"request body must be a JSON object"}`},
			{"empty body", req{Method: "POST", Path: "/test/echo", Body: ` `}, 400,
				`{"success":false,"error":"request body is empty","code":"invalid_request","message":"request body is empty"}`},
			{"wrong content type", req{Method: "POST", Path: "/test/echo", Body: `{}`, Headers: map[string]string{"Content-Type": "text/plain"}}, 415,
				`{"success":false,"error":"send the body as application/json","code":"unsupported_media_type","message":"send the body as application/json"}`},
			{"oversize body", req{Method: "POST", Path: "/test/echo", Body: `{"name":"` + strings.Repeat("x", 1<<20) + `"}`}, 413,
				`{"success":false,"error":"request body larger than 262144 bytes","code":"payload_too_large","message":"request body larger than 262144 bytes"}`},
			{"valid JSON passes", req{Method: "POST", Path: "/test/echo", Body: `{"name":"ok","n":2}`}, 200,
				`{"name":"ok","n":2}`},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) { expect(t, h.do(tc.r), tc.status, tc.body) })
		}
	}, withFx(probes))
}

func TestPanicIsA500AndTheServerKeepsServing(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		for range 3 {
			expect(t, h.get("/test/panic", ""), 500,
				`{"success":false,"error":"internal error","code":"internal_error","message":"internal error"}`)
		}
		expect(t, h.get("/healthz", ""), 200, `{"status":"ok"}`)
	}, withFx(probes))
}

func TestRequestIDIsEchoedOrMade(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		r := h.do(req{Method: "GET", Path: "/healthz", Headers: map[string]string{"X-Request-Id": "abc-123"}})
		if got := r.Header.Get("X-Request-Id"); got != "abc-123" {
			t.Fatalf("echo: %q", got)
		}
		if got := h.get("/nope", "").Header.Get("X-Request-Id"); len(got) != 24 {
			t.Fatalf("made: %q", got)
		}
	})
}

func TestReadinessFailsWhenTheDatabaseIsGone(t *testing.T) {
	parallel(t)
	for _, p := range profiles(t) {
		if p.sql == "" {
			continue // the memory profile has no database to lose
		}
		t.Run(p.name, func(t *testing.T) {
			h := newHarness(t, p)
			expect(t, h.get("/readyz", ""), 200, `{"status":"ready"}`)
			h.DB.Close()
			expect(t, h.get("/readyz", ""), 503,
				`{"success":false,"error":"service unavailable","code":"unavailable","message":"service unavailable"}`)
			expect(t, h.get("/healthz", ""), 200, `{"status":"ok"}`)
		})
	}
}

func TestMetricsCountRequestsByRoutePattern(t *testing.T) {
	parallel(t)
	eachMetricsProfile(t, "127.0.0.1:0", func(t *testing.T, h *harness, metrics *httpapi.MetricsServer) {
		u := h.newUser("m@x.io")
		expect(t, h.get("/api/users/user/"+u.ID, u.Token), 200, "")
		expect(t, h.get("/api/nothing", ""), 404, "")
		r := scrape(t, metrics)
		expect(t, r, 200, "")
		body := string(r.Body)
		for _, want := range []string{
			`tandem_http_requests_total{method="GET",route="/api/users/user/:userId",status="200"} 1`,
			`tandem_http_requests_total{method="GET",route="unmatched",status="404"} 1`,
			`tandem_http_request_duration_seconds_bucket{method="POST",route="/api/auth/signup/email",le="+Inf"} 2`,
			"go_goroutines",
		} {
			if !strings.Contains(body, want) {
				t.Errorf("metrics lack %s", want)
			}
		}
		if strings.Contains(body, u.ID) {
			t.Error("a raw path (with an id) became a label")
		}
	})
}
