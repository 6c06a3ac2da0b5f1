package tests

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"mime"
	"net/http"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"tandem/adapters/httpapi"
	"tandem/adapters/sqlstore/sqltest"
)

// Every response a test receives through the harness (harness.send) is
// checked against the OpenAPI document (httpapi.OpenAPI(): what /openapi.json
// serves, before servers is added), loaded and routed with kin-openapi and
// its schemas compiled once with santhosh-tekuri/jsonschema: the status
// must be documented for the operation, a JSON body must match its schema and
// documented headers their schemas; other bodies (image files) must
// carry a documented content type. A request that matches no documented
// operation (a hostile path, a wrong method) must get the shared error body.

// validated counts the checked responses; TestMain prints it.
var validated atomic.Int64

func TestMain(m *testing.M) {
	// The S3 adapter reads its credentials from the process environment
	// (the fake S3 servers take any): set once here, so that the tests on S3
	// may run in parallel (t.Setenv forbids it).
	os.Setenv("AWS_ACCESS_KEY_ID", "test-access-key")
	os.Setenv("AWS_SECRET_ACCESS_KEY", "test-secret-key")
	code := sqltest.Run(m)
	if n := validated.Load(); n > 0 && testing.Verbose() {
		fmt.Printf("openapi: %d responses validated against the document\n", n)
	}
	// Only the whole package answers every code (errorcodes_test.go); the
	// comparison is printed even when a test failed.
	if validated.Load() > 0 && wholePackageRan() {
		if !errorCodesAgree() {
			code = 1
		}
		printUnseenLiveEvents()
	}
	os.Exit(code)
}

// apiContract is the document and its operations, built once per process.
type apiContract struct {
	doc    *openapi3.T
	routes []contractRoute
	bodies *bodySchemas
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
	doc, err := loader.LoadFromData(httpapi.OpenAPI())
	if err != nil {
		return nil, fmt.Errorf("load openapi.json: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("openapi.json is not a valid document: %w", err)
	}
	bodies, err := newBodySchemas()
	if err != nil {
		return nil, err
	}
	c := &apiContract{doc: doc, bodies: bodies}
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
	recordErrorCode(hr.Method, hr.URL.Path, res)
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
	if err := documentedType(responses, res); err != nil {
		return err
	}
	at, ref := responseAt(route, res.Status)
	if err := c.checkHeaders(at, ref, res.Header); err != nil {
		return err
	}
	if !isJSON(res.Header.Get("Content-Type")) {
		return nil
	}
	media := ref.Value.Content.Get(res.Header.Get("Content-Type"))
	for name, m := range ref.Value.Content {
		if m == media && m.Schema != nil {
			return c.bodies.validate(at+"/content/"+pointerToken(name)+"/schema", res.Body)
		}
	}
	return nil // a documented response without a schema
}

// checkHeaders checks the documented headers of a response (at, in the
// document): a required one must be there, and each one there must match
// its schema, read as a number where the schema says so.
func (c *apiContract) checkHeaders(at string, ref *openapi3.ResponseRef, h http.Header) error {
	for name, header := range ref.Value.Headers {
		value := h.Get(name)
		if strings.EqualFold(name, "Content-Type") || header.Value == nil || header.Value.Schema == nil {
			continue
		}
		if value == "" {
			if header.Value.Required {
				return fmt.Errorf("the required header %s is missing", name)
			}
			continue
		}
		pointer := at + "/headers/" + pointerToken(name) + "/schema"
		if header.Ref != "" {
			pointer = strings.TrimPrefix(header.Ref, "#") + "/schema"
		}
		var v any = value
		if t := header.Value.Schema.Value.Type; t.Is("integer") || t.Is("number") {
			n, err := strconv.ParseFloat(value, 64)
			if err != nil {
				return fmt.Errorf("header %s: %q is not a number", name, value)
			}
			v = n
		}
		if err := c.bodies.check(pointer, v); err != nil {
			return fmt.Errorf("header %s: %w", name, err)
		}
	}
	return nil
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
	return c.bodies.validate("/components/schemas/Error", res.Body)
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

// bodySchemas compiles each documented body schema once, in the document
// itself (its $refs resolve there), with JSON Schema 2020-12 as OpenAPI 3.1
// has it and the formats asserted. kin-openapi compiles a 3.1 document's
// schema anew for every value it validates: that was most of the black-box
// tests' time (a compile per answer, under the race detector).
type bodySchemas struct {
	mu       sync.Mutex
	compiler *jsonschema.Compiler
	compiled map[string]*jsonschema.Schema
	// valid holds the bodies already found valid, by schema and digest: the
	// same answer needs no second check. The hostile-input table reads the
	// same four exports after each of its ~2,000 rows to see that nothing
	// changed; validating each of them again was a fifth of its time.
	valid sync.Map // [sha256.Size + len(pointer)]byte as string -> struct{}
}

const contractURL = "https://tandem.test/openapi.json"

func newBodySchemas() (*bodySchemas, error) {
	return compileDocument(httpapi.OpenAPI())
}

// compileDocument readies the schemas of an OpenAPI document for check.
func compileDocument(raw []byte) (*bodySchemas, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource(contractURL, doc); err != nil {
		return nil, err
	}
	return &bodySchemas{compiler: c, compiled: map[string]*jsonschema.Schema{}}, nil
}

// validate checks a JSON body against the schema at pointer in the document.
func (b *bodySchemas) validate(pointer string, body []byte) error {
	digest := sha256.Sum256(body)
	key := string(digest[:]) + pointer
	if _, seen := b.valid.Load(key); seen {
		return nil
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("the body is not JSON: %w", err)
	}
	if err := b.check(pointer, v); err != nil {
		return err
	}
	b.valid.Store(key, struct{}{})
	return nil
}

// check checks a decoded value against the schema at pointer.
func (b *bodySchemas) check(pointer string, v any) error {
	b.mu.Lock()
	schema, ok := b.compiled[pointer]
	if !ok {
		var err error
		if schema, err = b.compiler.Compile(contractURL + "#" + pointer); err != nil {
			b.mu.Unlock()
			return fmt.Errorf("schema %s: %w", pointer, err)
		}
		b.compiled[pointer] = schema
	}
	b.mu.Unlock()
	return schema.Validate(v)
}

// responseAt is the documented response of route for status, and where it
// is in the document: the exact status, else "4XX", else default; a $ref'd
// response at its target. documented has made sure there is one.
func responseAt(route *routers.Route, status int) (string, *openapi3.ResponseRef) {
	responses := route.Operation.Responses
	key := strconv.Itoa(status)
	for _, k := range []string{key, key[:1] + "XX", "default"} {
		if responses.Value(k) != nil {
			key = k
			break
		}
	}
	ref := responses.Value(key)
	if ref.Ref != "" {
		return strings.TrimPrefix(ref.Ref, "#"), ref
	}
	return "/paths/" + pointerToken(route.Path) + "/" + strings.ToLower(route.Method) + "/responses/" + pointerToken(key), ref
}

// pointerToken escapes a JSON pointer token (RFC 6901).
func pointerToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// TestTheValidatorRefusesUndocumentedAnswers keeps the check honest: a body
// off its schema, an undocumented status, a wrong content type and an answer
// to no operation all fail.
func TestTheValidatorRefusesUndocumentedAnswers(t *testing.T) {
	parallel(t)
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
