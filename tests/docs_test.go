package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The docs read no storage: one profile is enough.
func docsHarness(t *testing.T) *harness {
	return newHarness(t, profile{name: "memory"}, withEnv("TANDEM_PUBLIC_URL", "https://api.tandem.test/"))
}

// TestDocsPageLoadsTheLiveDocument: /docs is an HTML page, with a policy that
// allows only its own scripts, that points Swagger UI at /openapi.json.
func TestDocsPageLoadsTheLiveDocument(t *testing.T) {
	parallel(t)
	h := docsHarness(t)
	for _, path := range []string{"/docs", "/docs/"} {
		r := h.get(path, "")
		if r.Status != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") {
			t.Fatalf("GET %s: %d %q", path, r.Status, r.Header.Get("Content-Type"))
		}
		if !strings.Contains(string(r.Body), `data-openapi="/openapi.json"`) {
			t.Errorf("GET %s does not point at /openapi.json:\n%s", path, r.Body)
		}
		csp := r.Header.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'none'", "script-src 'self';", "connect-src 'self' https://api.tandem.test;"} {
			if !strings.Contains(csp, want) {
				t.Errorf("GET %s: Content-Security-Policy %q lacks %q", path, csp, want)
			}
		}
		if strings.Contains(string(r.Body), "<script>") || strings.Contains(string(r.Body), "://") {
			t.Errorf("GET %s: an inline script or an outside URL (the page must work offline):\n%s", path, r.Body)
		}
	}
}

var pageAsset = regexp.MustCompile(`(?:src|href)="(/docs/[^"]+)"`)

// TestDocsAssetsAreServedFromTheBinary: every file the page names is served,
// with its type, gzipped to a browser and plain to a client that takes no gzip.
func TestDocsAssetsAreServedFromTheBinary(t *testing.T) {
	parallel(t)
	h := docsHarness(t)
	page := h.get("/docs", "")
	assets := pageAsset.FindAllStringSubmatch(string(page.Body), -1)
	if len(assets) < 4 {
		t.Fatalf("the page names %d assets, want the icon, the style sheet and two scripts:\n%s", len(assets), page.Body)
	}
	types := map[string]string{".js": "text/javascript", ".css": "text/css", ".png": "image/png"}
	for _, m := range assets {
		path := m[1]
		want := types[path[strings.LastIndex(path, "."):]]
		for _, enc := range []string{"gzip", "identity"} {
			r := h.do(req{Method: "GET", Path: path, Headers: map[string]string{"Accept-Encoding": enc}})
			if r.Status != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), want) || len(r.Body) < 100 {
				t.Errorf("GET %s (%s): %d %q, %d bytes", path, enc, r.Status, r.Header.Get("Content-Type"), len(r.Body))
			}
			if enc == "identity" && r.Header.Get("Content-Encoding") != "" {
				t.Errorf("GET %s (identity): Content-Encoding %q", path, r.Header.Get("Content-Encoding"))
			}
		}
	}
	if r := h.get("/docs/nothing.js", ""); r.Status != 404 {
		t.Errorf("GET /docs/nothing.js: %d", r.Status)
	}
}

// TestOpenAPIServersComeFromThePublicURL: "try it out" and generated clients
// call the deployment the document was fetched from.
func TestOpenAPIServersComeFromThePublicURL(t *testing.T) {
	parallel(t)
	h := docsHarness(t)
	r := h.get("/openapi.json", "")
	var doc struct {
		Servers []struct{ URL string } `json:"servers"`
	}
	if err := json.Unmarshal(r.Body, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Servers) != 1 || doc.Servers[0].URL != "https://api.tandem.test" {
		t.Fatalf("servers: %+v", doc.Servers)
	}
}

// makeTestFigure is a duration said of `make test` in one sentence.
var makeTestFigure = regexp.MustCompile("`make test`[^.|]{0,40}?\\b(takes?|took|under|about|in)\\b[^.|(]{0,20}?\\b[0-9]+ ?(s|min|minutes|seconds)\\b")

// TestMakeTestFiguresLiveInBENCHMARKS: how long `make test` takes is said
// in BENCHMARKS.md only ("The test loop, now", which the README links), so
// that no copy elsewhere goes stale as the README's "under 6 minutes" did.
func TestMakeTestFiguresLiveInBENCHMARKS(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range append(files, "../README.md", "../RELIABILITY.md", "../SECURITY.md") {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Join(strings.Fields(string(b)), " ")
		if m := makeTestFigure.FindString(text); m != "" {
			t.Errorf("%s says how long make test takes (%q): keep the figure in BENCHMARKS.md and link it", f, m)
		}
	}
	readme, _ := os.ReadFile("../README.md")
	bench, _ := os.ReadFile("../BENCHMARKS.md")
	if !strings.Contains(string(readme), "BENCHMARKS.md#the-test-loop-now") || !strings.Contains(string(bench), "\n## The test loop, now\n") {
		t.Error("the README does not link BENCHMARKS.md's \"The test loop, now\", or the section is gone")
	}
}
