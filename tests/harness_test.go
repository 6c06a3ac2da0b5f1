// Package tests holds the black-box HTTP tests: the real app, assembled by
// bootstrap on a random port, for each storage profile on a fresh database.
package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"

	"tandem/adapters/httpapi"
	"tandem/adapters/mail/memmail"
	"tandem/adapters/password"
	"tandem/adapters/sqlstore"
	"tandem/adapters/sqlstore/sqltest"
	"tandem/bootstrap"
	"tandem/core"
	"tandem/core/coretest"
)

// profile is one storage configuration under test.
type profile struct {
	name string
	sql  sqlstore.Dialect // "" for memory
}

// profiles are memory and SQLite always, MySQL when TANDEM_TEST_MYSQL_DSN is set
// (and required under CI).
func profiles(t testing.TB) []profile {
	ps := []profile{{name: "memory"}}
	for _, d := range sqltest.Dialects(t) {
		ps = append(ps, profile{name: string(d), sql: d})
	}
	return ps
}

// parallel lets t run beside the other tests, once however many profile
// loops it holds: every app has its own port, database and clock, and the
// data of one test cannot meet another's. A test that needs the process to
// itself (heap, working directory, environment) loops over profiles(t)
// instead, and is not parallel.
func parallel(t *testing.T) {
	if _, again := parallelTests.LoadOrStore(t, true); !again {
		t.Parallel()
	}
}

var parallelTests sync.Map // *testing.T → true

// eachProfile runs fn on a fresh app per profile.
func eachProfile(t *testing.T, fn func(t *testing.T, h *harness), opts ...option) {
	parallel(t)
	for _, p := range profiles(t) {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			fn(t, newHarness(t, p, opts...))
		})
	}
}

// eachSharedProfile runs fn on each profile that several processes can
// share, the SQL ones (a memory store is one process's), beside each
// other: the tests of several app instances on one database.
func eachSharedProfile(t *testing.T, fn func(t *testing.T, p profile)) {
	parallel(t)
	for _, p := range profiles(t) {
		if p.sql == "" {
			continue
		}
		t.Run(p.name, func(t *testing.T) {
			parallel(t)
			fn(t, p)
		})
	}
}

// eachProfileWith is eachProfile with a value the app provides (a
// repository, the memory pusher's outbox), populated from fx.
func eachProfileWith[T any](t *testing.T, fn func(t *testing.T, h *harness, v T), opts ...option) {
	parallel(t)
	for _, p := range profiles(t) {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			var v T
			h := newHarness(t, p, append(slices.Clone(opts), withFx(fx.Populate(&v)))...)
			fn(t, h, v)
		})
	}
}

// eachProfileOwn is eachProfile where each profile gets its own fake of an
// outside service, built in its subtest by own with the option that points
// the app at it: one profile's simulated outage never reaches another
// running beside it.
func eachProfileOwn[S any](t *testing.T, own func(t *testing.T) (S, option), fn func(t *testing.T, h *harness, s S)) {
	parallel(t)
	for _, p := range profiles(t) {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			s, opt := own(t)
			fn(t, newHarness(t, p, opt), s)
		})
	}
}

// option adjusts a harness before the app is built.
type option func(*harness)

// withFx adds fx options (probe routes, decorated fakes).
func withFx(opts ...fx.Option) option { return func(h *harness) { h.extra = append(h.extra, opts...) } }

// withEnv overrides one TANDEM_* variable.
func withEnv(name, value string) option { return func(h *harness) { h.env[name] = value } }

// sharingDB runs the harness on other's database instead of a fresh one: a
// second app instance, as another process behind the load balancer (SQL
// profiles only; a memory store is one process's). With memory mail both
// deliver to other's mailbox: any process may send a mail queued by another.
func sharingDB(other *harness) option {
	return func(h *harness) {
		h.env["TANDEM_DB"] = other.env["TANDEM_DB"]
		h.mailbox = other
	}
}

// withProductionHashing keeps argon2id at its production cost, for the
// tests where that cost is the subject (hashing slots, busy answers);
// the others hash with testHashParams.
func withProductionHashing() option { return func(h *harness) { h.productionHashing = true } }

// testHashParams make a test's password hash cost microseconds instead of
// 50-110 ms: still argon2id, still salted and verified, in its PHC form. The
// password adapter's own tests run at production settings.
var testHashParams = password.Params{Memory: 8, Iterations: 1, Parallelism: 1}

// harness is one running app and a client for it.
type harness struct {
	t      testing.TB
	base   string
	client *http.Client
	Clock  *coretest.FixedClock
	DB     *sqlstore.DB // nil on memory
	Mail   *memmail.Outbox
	app    *fxtest.App
	env    map[string]string
	extra  []fx.Option
	// mailbox is the harness whose memory mailbox this one delivers to
	// (sharingDB); nil: its own.
	mailbox           *harness
	productionHashing bool
}

func newHarness(t testing.TB, p profile, opts ...option) *harness {
	t.Helper()
	h := &harness{t: t, client: &http.Client{Timeout: 20 * time.Second}, Clock: coretest.NewClock(time.Time{})}
	h.env = map[string]string{
		"TANDEM_ADDR":         "127.0.0.1:0",
		"TANDEM_PUBLIC_URL":   "http://localhost:8080", // the URLs the scenarios expect (a random port would follow TANDEM_ADDR)
		"TANDEM_METRICS_ADDR": "",                      // off; a test that reads it asks for 127.0.0.1:0
		"TANDEM_ENV":          "development",           // trust purchases, as the spec's examples
		"TANDEM_DB":           "memory",
		"TANDEM_BLOBS":        "memory",
		"TANDEM_MAIL":         "memory",
		"TANDEM_PUSH":         "memory",
		"TANDEM_LOG_LEVEL":    logLevel(),
		"TANDEM_API_KEYS":     testAPIKey,
		// The processes of one test deployment sign their NATS messages alike.
		"TANDEM_BUS_SECRET": testBusSecret,
		// Stopping does not wait for clients to leave (drain_test.go does).
		"TANDEM_SHUTDOWN_GRACE": "0s",
	}
	for _, o := range opts {
		o(h)
	}
	if p.sql != "" && h.env["TANDEM_DB"] == "memory" { // a database of its own, unless an option named one
		c := sqltest.Migrated(t, p.sql)
		h.env["TANDEM_DB"] = string(p.sql) + ":" + c.DSN
	}
	cfg, err := bootstrap.Load(func(k string) (string, bool) {
		v, ok := h.env[k]
		return v, ok
	})
	if err != nil {
		t.Fatal(err)
	}
	if !h.productionHashing {
		cfg.HashParams = testHashParams
	}
	var srv *httpapi.Server
	fxOpts := []fx.Option{
		fx.Decorate(func() core.Clock { return h.Clock }),
		fx.Populate(&srv),
	}
	if h.env["TANDEM_MAIL"] == "memory" {
		if h.mailbox != nil && h.mailbox.Mail != nil {
			fxOpts = append(fxOpts, fx.Decorate(func() *memmail.Outbox { return h.mailbox.Mail }))
		}
		fxOpts = append(fxOpts, fx.Populate(&h.Mail))
	}
	if p.sql != "" {
		fxOpts = append(fxOpts, fx.Populate(&h.DB))
	}
	full := fxtest.New(t, bootstrap.Options(cfg), fx.Options(fxOpts...), fx.Options(h.extra...))
	full.RequireStart()
	t.Cleanup(func() { _ = full.Stop(context.Background()) })
	h.app = full
	h.base = "http://" + srv.Addr()
	return h
}

const testAPIKey = "test-service-key"

func logLevel() string {
	if v := os.Getenv("TANDEM_TEST_LOG"); v != "" {
		return v
	}
	return "fatal"
}

// response is what a request got back.
type response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body as an object.
func (r response) JSON(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("body is not a JSON object: %v: %s", err, r.Body)
	}
	return m
}

// req describes one request; Body is JSON-encoded unless it is []byte or string.
type req struct {
	Method  string
	Path    string
	Body    any
	Token   string
	Headers map[string]string
}

func (h *harness) do(r req) response {
	h.t.Helper()
	res, err := h.send(h.request(r))
	if err != nil {
		h.t.Fatalf("%s %s: %v", r.Method, r.Path, err)
	}
	return res
}

// request builds r: a JSON body unless Headers say otherwise.
func (h *harness) request(r req) *http.Request {
	h.t.Helper()
	var body io.Reader
	switch b := r.Body.(type) {
	case nil:
	case []byte:
		body = bytes.NewReader(b)
	case string:
		body = strings.NewReader(b)
	default:
		buf, err := json.Marshal(b)
		if err != nil {
			h.t.Fatal(err)
		}
		body = bytes.NewReader(buf)
	}
	hr, err := http.NewRequestWithContext(context.Background(), r.Method, h.base+r.Path, body)
	if err != nil {
		h.t.Fatal(err)
	}
	if body != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	if r.Token != "" {
		hr.Header.Set("Authorization", "Bearer "+r.Token)
	}
	for k, v := range maps.All(r.Headers) {
		hr.Header.Set(k, v)
	}
	return hr
}

// send is the one way the tests talk to the app: every answer is checked
// against the OpenAPI document (openapi_validate_test.go).
func (h *harness) send(hr *http.Request) (response, error) {
	res, err := h.client.Do(hr)
	if err != nil {
		return response{}, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	out := response{Status: res.StatusCode, Header: res.Header, Body: b}
	if err == nil {
		h.checkResponse(hr, out)
	}
	return out, err
}

// atOnce sends the requests from goroutines released together by a closed
// channel and returns the responses in order.
func (h *harness) atOnce(rs ...req) []response {
	h.t.Helper()
	hs := make([]*harness, len(rs))
	for i := range hs {
		hs[i] = h
	}
	return atOnceAcross(h.t, hs, rs...)
}

// atOnceAcross sends rs[i] to hs[i] (processes sharing a database), all at
// the same instant.
func atOnceAcross(t testing.TB, hs []*harness, rs ...req) []response {
	t.Helper()
	hrs := make([]*http.Request, len(rs))
	for i, r := range rs {
		hrs[i] = hs[i].request(r)
	}
	out, errs := make([]response, len(rs)), make([]error, len(rs))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, hr := range hrs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			out[i], errs[i] = hs[i].send(hr)
		}()
	}
	close(start)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func (h *harness) get(path, token string) response {
	h.t.Helper()
	return h.do(req{Method: "GET", Path: path, Token: token})
}

func (h *harness) post(path, token string, body any) response {
	h.t.Helper()
	return h.do(req{Method: "POST", Path: path, Token: token, Body: body})
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
