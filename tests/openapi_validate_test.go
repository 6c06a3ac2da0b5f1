package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"tandem/adapters/httpapi"
)

// Every response a test receives through the harness (harness.send) is
// checked against the OpenAPI document (httpapi.OpenAPI: what /openapi.json
// serves, before servers is added) with kin-openapi: the status
// must be documented for the operation, a JSON body must match its schema and
// documented headers their schemas; other bodies (image files) must
// carry a documented content type. A request that matches no documented
// operation (a hostile path, a wrong method) must get the shared error body.

// validated counts the checked responses; TestMain prints it.
var validated atomic.Int64

func TestMain(m *testing.M) {
	code := m.Run()
	if n := validated.Load(); n > 0 && testing.Verbose() {
		fmt.Printf("openapi: %d responses validated against the document\n", n)
	}
	os.Exit(code)
}

// apiContract is the document and its operations, built once per process.
type apiContract struct {
	doc    *openapi3.T
	routes []contractRoute
	errors *openapi3.Schema // components.schemas.Error
}

// contractRoute matches paths as Fiber routes them: case-insensitively, with
// an optional trailing slash.
type contractRoute struct {
	re     *regexp.Regexp
	params int
	path   string
	item   *openapi3.PathItem
}

var loadContract = sync.OnceValues(func() (*apiContract, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(httpapi.OpenAPI)
	if err != nil {
		return nil, fmt.Errorf("load openapi.json: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("openapi.json is not a valid document: %w", err)
	}
	c := &apiContract{doc: doc, errors: doc.Components.Schemas["Error"].Value}
	for path, item := range doc.Paths.Map() {
		c.routes = append(c.routes, contractRoute{re: pathPattern(path), params: strings.Count(path, "{"), path: path, item: item})
	}
	// Static segments win over parameters, as in the router (date-range before {eventId}).
	sort.Slice(c.routes, func(i, j int) bool {
		if c.routes[i].params != c.routes[j].params {
			return c.routes[i].params < c.routes[j].params
		}
		return c.routes[i].path < c.routes[j].path
	})
	return c, nil
})

var pathParam = regexp.MustCompile(`\\\{[^}]+\\\}`)

func pathPattern(path string) *regexp.Regexp {
	return regexp.MustCompile(`(?i)^` + pathParam.ReplaceAllString(regexp.QuoteMeta(path), `[^/]+`) + `/?$`)
}

// route finds the documented operation of a request, as Fiber does: the
// first path that matches and serves the method; nil when there is none.
func (c *apiContract) route(method, path string) *routers.Route {
	if method == http.MethodHead {
		method = http.MethodGet // Fiber answers HEAD with the GET route
	}
	for _, r := range c.routes {
		if !r.re.MatchString(path) {
			continue
		}
		if op := r.item.GetOperation(method); op != nil {
			return &routers.Route{Spec: c.doc, Path: r.path, PathItem: r.item, Method: method, Operation: op}
		}
	}
	return nil
}

// checkResponse fails the test when res is not what the document promises.
func (h *harness) checkResponse(hr *http.Request, res response) {
	if _, bench := h.t.(*testing.B); bench {
		return // benchmarks measure the server, not the validator
	}
	c, err := loadContract()
	if err != nil {
		h.t.Error(err) // not Fatal: atOnce sends from other goroutines
		return
	}
	if pageForPeople(hr.URL.Path) || strings.HasPrefix(hr.URL.Path, "/test/") {
		return // HTML pages, and the probe routes tests add themselves (withFx)
	}
	validated.Add(1)
	if err := c.check(hr, res); err != nil {
		h.t.Errorf("openapi: %s %s answered %d, not as documented: %v\nbody: %.300s", hr.Method, hr.URL.Path, res.Status, err, res.Body)
	}
}

func (c *apiContract) check(hr *http.Request, res response) error {
	route := c.route(hr.Method, hr.URL.Path)
	if route == nil {
		return c.checkUnrouted(hr, res)
	}
	responses := route.Operation.Responses
	if documented(responses, res.Status) == nil {
		return fmt.Errorf("status %d is not documented for %s %s", res.Status, route.Method, route.Path)
	}
	if err := bodyDocumented(responses, res); err != nil {
		return err
	}
	opts := &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true}
	if !isJSON(res.Header.Get("Content-Type")) {
		if err := documentedType(responses, res); err != nil {
			return err
		}
		opts.ExcludeResponseBody = true
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: hr, Route: route},
		Status:                 res.Status,
		Header:                 res.Header,
		Body:                   io.NopCloser(bytes.NewReader(res.Body)),
		Options:                opts,
	}
	return openapi3filter.ValidateResponse(context.Background(), in)
}

// checkUnrouted: a request no operation documents (a hostile path, a wrong
// method, a CORS preflight) gets an error status with the shared error body,
// or the preflight's empty 204.
func (c *apiContract) checkUnrouted(hr *http.Request, res response) error {
	if hr.Method == http.MethodOptions && res.Status == http.StatusNoContent {
		return nil
	}
	if res.Status < 400 {
		return fmt.Errorf("no documented operation, yet status %d", res.Status)
	}
	if !isJSON(res.Header.Get("Content-Type")) {
		return fmt.Errorf("error answer with content type %q", res.Header.Get("Content-Type"))
	}
	var body any
	if err := json.Unmarshal(res.Body, &body); err != nil {
		return fmt.Errorf("error answer is not JSON: %w", err)
	}
	return c.errors.VisitJSON(body, openapi3.EnableJSONSchema2020())
}

// bodyDocumented: a body where the document promises none (kin-openapi lets
// it pass) is an answer nobody documented.
func bodyDocumented(responses *openapi3.Responses, res response) error {
	if ref := documented(responses, res.Status); len(ref.Value.Content) == 0 && len(res.Body) > 0 {
		return fmt.Errorf("status %d carries a body (%q) but the document describes none", res.Status, res.Header.Get("Content-Type"))
	}
	return nil
}

func documented(responses *openapi3.Responses, status int) *openapi3.ResponseRef {
	if ref := responses.Status(status); ref != nil {
		return ref
	}
	return responses.Default()
}

// documentedType checks the content type of a body the validator does not
// decode (files, images, exports) against the documented media types.
func documentedType(responses *openapi3.Responses, res response) error {
	content := documented(responses, res.Status).Value.Content
	if len(content) == 0 || len(res.Body) == 0 && res.Header.Get("Content-Type") == "" {
		return nil
	}
	if content.Get(res.Header.Get("Content-Type")) == nil {
		return fmt.Errorf("content type %q is not documented for status %d", res.Header.Get("Content-Type"), res.Status)
	}
	return nil
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// TestTheValidatorRefusesUndocumentedAnswers keeps the check honest: a body
// off its schema, an undocumented status, a wrong content type and an answer
// to no operation all fail.
func TestTheValidatorRefusesUndocumentedAnswers(t *testing.T) {
	c, err := loadContract()
	if err != nil {
		t.Fatal(err)
	}
	jsonType := http.Header{"Content-Type": {"application/json"}}
	cases := []struct {
		name, method, path string
		res                response
	}{
		{"body off its schema", "GET", "/healthz", response{200, jsonType, []byte(`{"status":"fine"}`)}},
		{"undocumented status", "GET", "/healthz", response{418, jsonType, []byte(`{}`)}},
		{"error body off the shared schema", "GET", "/readyz", response{503, jsonType, []byte(`{"error":"x"}`)}},
		{"undocumented content type", "GET", "/files/u/a/b.jpg", response{200, http.Header{"Content-Type": {"text/html"}}, []byte("<p>")}},
		{"success on no operation", "GET", "/api/nothing", response{200, jsonType, []byte(`{}`)}},
		{"error on no operation, not the error body", "DELETE", "/healthz", response{405, jsonType, []byte(`{"success":true}`)}},
	}
	for _, tc := range cases {
		hr, _ := http.NewRequest(tc.method, "http://127.0.0.1"+tc.path, nil)
		if err := c.check(hr, tc.res); err == nil {
			t.Errorf("%s: %s %s %d passed", tc.name, tc.method, tc.path, tc.res.Status)
		}
	}
	ok := response{200, jsonType, []byte(`{"status":"ok"}`)}
	hr, _ := http.NewRequest("GET", "http://127.0.0.1/HEALTHZ/", nil) // routed as Fiber does
	if err := c.check(hr, ok); err != nil {
		t.Errorf("a documented answer failed: %v", err)
	}
}
