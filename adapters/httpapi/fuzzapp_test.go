package httpapi_test

// The harness of the request-body fuzz targets (the Fuzz*Body functions
// beside each handler file): the whole app, assembled by bootstrap on the
// memory profile with a fixed clock, answering through fiber's app.Test, so
// a fuzzed body goes through the real middleware, BindJSON, the handler's
// mapping and the module's validation. It is built once per fuzzing process
// and shared by every input; each target cleans up what an input created.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"go.uber.org/fx"

	"tandem/adapters/httpapi"
	"tandem/adapters/mail/memmail"
	"tandem/bootstrap"
	"tandem/core"
	"tandem/core/coretest"
)

const (
	fuzzKey       = "fuzz-service-key"
	fuzzPublicURL = "https://tandem.example"
	fuzzPassword  = "correct-horse-1"
)

// fuzzUser is a signed-in account of the fuzz app.
type fuzzUser struct{ ID, Token, Email string }

// fuzzAPI is the app every body fuzz target sends to: user and partner are
// paired; admin is an administrator.
type fuzzAPI struct {
	srv     *httpapi.Server
	clock   *coretest.FixedClock
	issued  time.Time // when the tokens were handed out: they live 90 days
	mail    *memmail.Outbox
	user    fuzzUser
	partner fuzzUser
	admin   fuzzUser
	mu      sync.Mutex // one input at a time: targets read back what they wrote
}

var (
	fuzzOnce sync.Once
	fuzzApp  *fuzzAPI
	fuzzErr  error
)

// apiForFuzz starts the app on first use. It is never stopped: it lives as
// long as the fuzzing process.
func apiForFuzz(t testing.TB) *fuzzAPI {
	t.Helper()
	fuzzOnce.Do(func() { fuzzApp, fuzzErr = startFuzzAPI() })
	if fuzzErr != nil {
		t.Fatal(fuzzErr)
	}
	return fuzzApp
}

func startFuzzAPI() (*fuzzAPI, error) {
	env := map[string]string{
		"TANDEM_ADDR": "127.0.0.1:0", "TANDEM_METRICS_ADDR": "", "TANDEM_PUBLIC_URL": fuzzPublicURL,
		"TANDEM_DB": "memory", "TANDEM_BLOBS": "memory", "TANDEM_MAIL": "memory", "TANDEM_PUSH": "memory", "TANDEM_ENV": "development",
		"TANDEM_LOG_LEVEL": "fatal", "TANDEM_API_KEYS": fuzzKey, "TANDEM_ADMIN_EMAILS": "boss@fuzz.io",
		// Limits that are not what a body target checks would only turn its
		// inputs into 429s.
		"TANDEM_RATE_LIMIT_IP": "100000000", "TANDEM_IMAGES_RATE_LIMIT": "100000000",
		"TANDEM_PAIRING_FAILS_USER": "100000000", "TANDEM_PAIRING_FAILS_IP": "100000000",
		"TANDEM_WRITE_BUDGETS":     "messages=100000000/100000000,events=100000000/100000000,memories=100000000/100000000,moods=100000000/100000000,idempotency_keys=100000000/100000000",
		"TANDEM_REMINDER_INTERVAL": "1h",
		"TANDEM_LIMITS_FREE":       `{"storage":"1GB","imagesPerUpload":4,"memories":1000000}`,
	}
	cfg, err := bootstrap.Load(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		return nil, err
	}
	a := &fuzzAPI{clock: coretest.NewClock(time.Time{})}
	a.issued = a.clock.Now()
	app := fx.New(bootstrap.Options(cfg), fx.NopLogger,
		fx.Decorate(func() core.Clock { return a.clock }), fx.Populate(&a.srv, &a.mail))
	if err := app.Start(context.Background()); err != nil {
		return nil, err
	}
	if a.user, err = a.signUp("ann@fuzz.io"); err != nil {
		return nil, err
	}
	if a.partner, err = a.signUp("bob@fuzz.io"); err != nil {
		return nil, err
	}
	if a.admin, err = a.signUp("boss@fuzz.io"); err != nil {
		return nil, err
	}
	return a, a.pair()
}

// advance moves the clock on (to the next window of a rate limit, to a new
// date) and logs the users in again before their tokens could expire.
func (a *fuzzAPI) advance(t *testing.T, d time.Duration) {
	t.Helper()
	a.clock.Advance(d)
	if a.clock.Now().Sub(a.issued) < 80*24*time.Hour {
		return
	}
	for _, u := range []*fuzzUser{&a.user, &a.partner, &a.admin} {
		b := a.must(t, "POST", "/api/auth/login/email", "", jsonOf(map[string]string{"email": u.Email, "password": fuzzPassword}))
		u.Token = decodeAs[struct{ Token string }](t, b).Token
	}
	a.issued = a.clock.Now()
}

// signUp makes a verified account through the API.
func (a *fuzzAPI) signUp(email string) (fuzzUser, error) {
	st, b, err := a.do("POST", "/api/auth/signup/email", "", jsonOf(map[string]string{"email": email, "password": fuzzPassword}), nil)
	if err != nil || st != 200 {
		return fuzzUser{}, fmt.Errorf("sign-up %s: %d %s %v", email, st, b, err)
	}
	var r struct{ UserID, Token string }
	_ = json.Unmarshal(b, &r)
	st, b, err = a.do("POST", "/api/auth/signup/email", "", jsonOf(map[string]string{"userId": r.UserID, "verificationCode": a.mail.Code(email)}), nil)
	if err != nil || st != 200 {
		return fuzzUser{}, fmt.Errorf("verify %s: %d %s %v", email, st, b, err)
	}
	_ = json.Unmarshal(b, &r)
	return fuzzUser{ID: r.UserID, Token: r.Token, Email: email}, nil
}

// pair pairs user and partner through the pairing codes.
func (a *fuzzAPI) pair() error {
	codeOf := func(u fuzzUser) (string, error) {
		st, b, err := a.do("POST", "/api/users/user/"+u.ID+"/pairing", u.Token, []byte(`{"action":"generate-code"}`), nil)
		var r struct{ Code string }
		_ = json.Unmarshal(b, &r)
		if err != nil || st != 200 {
			return "", fmt.Errorf("generate-code: %d %s %v", st, b, err)
		}
		return r.Code, nil
	}
	ca, err := codeOf(a.user)
	if err != nil {
		return err
	}
	cb, err := codeOf(a.partner)
	if err != nil {
		return err
	}
	for _, s := range []struct {
		u    fuzzUser
		code string
	}{{a.user, cb}, {a.partner, ca}} {
		st, b, err := a.do("POST", "/api/users/user/"+s.u.ID+"/pairing", s.u.Token, jsonOf(map[string]string{"action": "submit-code", "targetCode": s.code}), nil)
		if err != nil || st != 200 {
			return fmt.Errorf("submit-code: %d %s %v", st, b, err)
		}
	}
	return nil
}

// do sends one request through app.Test: a JSON body unless headers say
// otherwise.
func (a *fuzzAPI) do(method, path, token string, body []byte, headers map[string]string) (int, []byte, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req := httptest.NewRequest(method, path, r)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := a.srv.App.Test(req, -1)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res.StatusCode, b, err
}

// send is do for a fuzz input: every answer must be a 200 or a 4xx with
// the API's one error body, whatever was sent.
func (a *fuzzAPI) send(t *testing.T, method, path, token string, body []byte) (int, []byte) {
	t.Helper()
	return a.sendWith(t, method, path, token, body, nil)
}

func (a *fuzzAPI) sendWith(t *testing.T, method, path, token string, body []byte, headers map[string]string) (int, []byte) {
	t.Helper()
	st, b, err := a.do(method, path, token, body, headers)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	switch {
	case st == 200:
	case st >= 400 && st < 500:
		if err := errorShape(b); err != nil {
			t.Fatalf("%s %s %q: %d with %v: %s", method, path, body, st, err, b)
		}
	default:
		t.Fatalf("%s %s %q: status %d: %s", method, path, body, st, b)
	}
	return st, b
}

// must is do for the harness's own requests, which must succeed.
func (a *fuzzAPI) must(t *testing.T, method, path, token string, body []byte) []byte {
	t.Helper()
	st, b, err := a.do(method, path, token, body, nil)
	if err != nil || st != 200 {
		t.Fatalf("%s %s: %d %s %v", method, path, st, b, err)
	}
	return b
}

var errorCode = regexp.MustCompile(`^[a-z][a-z_]*[a-z]$`)

// errorShape checks the one error body: exactly success false, error and
// message the same non-empty text, and a snake_case code.
func errorShape(b []byte) error {
	var e map[string]any
	if err := json.Unmarshal(b, &e); err != nil {
		return fmt.Errorf("error body is not a JSON object: %v", err)
	}
	msg, _ := e["message"].(string)
	code, _ := e["code"].(string)
	if len(e) != 4 || e["success"] != false || msg == "" || e["error"] != msg || !errorCode.MatchString(code) {
		return fmt.Errorf("error body is not {success: false, error, code, message}")
	}
	return nil
}

// jsonOf encodes v.
func jsonOf(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// decodeAs decodes an answer the app gave, failing the input when it is not v's shape.
func decodeAs[T any](t *testing.T, b []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("answer is not the documented record: %v: %s", err, b)
	}
	return v
}

// textRule checks a stored text against its documented rule: trimmed when
// the API trims it, at most max characters, at least min, and what
// core.CheckText allows.
func textRule(t *testing.T, field, s string, min, max int, multiline, trimmed bool) {
	t.Helper()
	n := utf8.RuneCountInString(s)
	switch {
	case n < min || n > max:
		t.Fatalf("%s holds %d characters, outside %d to %d: %q", field, n, min, max, clipForLog(s))
	case trimmed && strings.TrimSpace(s) != s:
		t.Fatalf("%s is stored untrimmed: %q", field, clipForLog(s))
	case core.CheckText(field, s, multiline) != nil:
		t.Fatalf("%s holds what the text rule refuses: %q", field, clipForLog(s))
	}
}

func clipForLog(s string) string {
	if len(s) > 120 {
		return s[:120] + "..."
	}
	return s
}

// textFields returns the string fields of a JSON object body as the
// decoder reads them ({"Title": "x"} names the field title too), for
// comparing what was sent with what was stored; ok is false for a body
// that is not an object of unique keys.
func textFields(body []byte) (map[string]string, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return nil, false
	}
	out := map[string]string{}
	for k, raw := range m {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			lk := strings.ToLower(k)
			if _, dup := out[lk]; dup {
				return nil, false
			}
			out[lk] = s
		}
	}
	return out, true
}
