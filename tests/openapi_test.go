package tests

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"

	"tandem/adapters/httpapi"
	"tandem/bootstrap"
)

// TestOpenAPIDocumentMatchesTheRouter fails when a route is registered but
// not documented, or documented but not registered.
func TestOpenAPIDocumentMatchesTheRouter(t *testing.T) {
	parallel(t)
	cfg, err := bootstrap.Load(func(k string) (string, bool) {
		v, ok := map[string]string{"TANDEM_DB": "memory", "TANDEM_ADDR": "127.0.0.1:0", "TANDEM_LOG_LEVEL": "fatal",
			"TANDEM_BLOBS": "memory", "TANDEM_MAIL": "memory", "TANDEM_PUSH": "memory", "TANDEM_METRICS_ADDR": "", "TANDEM_ENV": "development"}[k]
		return v, ok
	})
	if err != nil {
		t.Fatal(err)
	}
	var srv *httpapi.Server
	fxtest.New(t, bootstrap.Options(cfg), fx.Populate(&srv))

	routed := map[string]bool{}
	for _, r := range srv.App.GetRoutes(true) {
		if r.Method == fiber.MethodHead || r.Method == fiber.MethodOptions || pageForPeople(r.Path) {
			continue
		}
		if strings.HasPrefix(r.Path, "/admin") || strings.HasPrefix(r.Path, "/docs") { // HTML pages, not API
			continue
		}
		routed[r.Method+" "+openAPIPath(r.Path)] = true
	}
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(httpapi.OpenAPI(), &doc); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	documented := map[string]bool{}
	for path, ops := range doc.Paths {
		for method := range ops {
			if method == "parameters" || method == "summary" || method == "description" {
				continue
			}
			documented[strings.ToUpper(method)+" "+path] = true
		}
	}
	if missing, extra := diff(routed, documented), diff(documented, routed); len(missing)+len(extra) > 0 {
		t.Fatalf("routes not documented: %v\ndocumented but not routed: %v", missing, extra)
	}
}

// pageForPeople: /docs and the admin console are HTML pages, not API, so the
// document leaves them out.
func pageForPeople(path string) bool {
	for _, prefix := range []string{"/docs", "/admin"} {
		if path == prefix || strings.HasPrefix(path, prefix+"/") {
			return true
		}
	}
	return false
}

// openAPIPath turns Fiber's /a/:id into OpenAPI's /a/{id}.
func openAPIPath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		if strings.HasPrefix(s, ":") {
			parts[i] = "{" + strings.TrimSuffix(strings.TrimPrefix(s, ":"), "?") + "}"
		}
	}
	out := strings.Join(parts, "/")
	if len(out) > 1 {
		out = strings.TrimSuffix(out, "/")
	}
	return out
}

func diff(a, b map[string]bool) []string {
	var out []string
	for k := range a {
		if !b[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
