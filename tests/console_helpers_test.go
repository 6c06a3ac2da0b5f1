package tests

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// bossEmail is the administrator of the console tests (TANDEM_ADMIN_EMAILS).
const bossEmail = "boss@example.com"

func withAdmins(emails string) option { return withEnv("TANDEM_ADMIN_EMAILS", emails) }

// console is a browser-like client of /admin: it keeps the cookies the
// console sets by hand (a cookie jar would drop Secure ones over http),
// follows no redirect, and reads each page's CSRF field.
type console struct {
	t       testing.TB
	h       *harness
	client  *http.Client
	cookies map[string]string
	csrf    string // the last page's CSRF field
}

func (h *harness) console(t testing.TB) *console {
	return &console{t: t, h: h, cookies: map[string]string{}, client: &http.Client{Timeout: 20 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]*)"`)

func (c *console) send(method, path string, form url.Values) response {
	c.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	r, err := http.NewRequestWithContext(context.Background(), method, c.h.base+path, body)
	if err != nil {
		c.t.Fatal(err)
	}
	if form != nil {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for name, v := range c.cookies {
		r.AddCookie(&http.Cookie{Name: name, Value: v})
	}
	hr, err := c.client.Do(r)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer hr.Body.Close()
	b, err := io.ReadAll(hr.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	res := response{Status: hr.StatusCode, Header: hr.Header, Body: b}
	for _, ck := range (&http.Response{Header: res.Header}).Cookies() {
		if ck.MaxAge < 0 || ck.Value == "" {
			delete(c.cookies, ck.Name)
		} else {
			c.cookies[ck.Name] = ck.Value
		}
	}
	if m := csrfField.FindSubmatch(res.Body); m != nil {
		c.csrf = html.UnescapeString(string(m[1]))
	}
	return res
}

func (c *console) get(path string) response {
	c.t.Helper()
	return c.send("GET", path, nil)
}

// post sends a form with the last page's CSRF token added.
func (c *console) post(path string, form url.Values) response {
	c.t.Helper()
	f := url.Values{"csrf": {c.csrf}}
	for k, vs := range form {
		f[k] = vs
	}
	return c.send("POST", path, f)
}

// postRaw sends the form as given (no CSRF added).
func (c *console) postRaw(path string, form url.Values) response {
	c.t.Helper()
	return c.send("POST", path, form)
}

// signIn opens the sign-in page and submits it.
func (c *console) signIn(email, password string) response {
	c.t.Helper()
	expectPage(c.t, c.get("/admin/signin"), 200, "Sign in")
	return c.post("/admin/signin", url.Values{"email": {email}, "password": {password}})
}

// mustSignIn signs in and expects the console's overview.
func (c *console) mustSignIn(email string) {
	c.t.Helper()
	expectRedirect(c.t, c.signIn(email, pw), "/admin")
	expectPage(c.t, c.get("/admin"), 200, "Overview")
}

// newestSession is the id of u's newest session, as the API lists it.
func (h *harness) newestSession(t testing.TB, u user) string {
	t.Helper()
	r := h.get("/api/users/user/"+u.ID+"/sessions", u.Token)
	expect(t, r, 200, "")
	return r.JSON(t)["sessions"].([]any)[0].(map[string]any)["id"].(string)
}

// expectPage checks a console answer's status, that it is HTML with the
// console's headers, and that it shows text.
func expectPage(t testing.TB, r response, status int, text string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Fatalf("content type %q", ct)
	}
	if csp := r.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "script-src") {
		t.Fatalf("CSP %q", csp)
	}
	if !strings.Contains(string(r.Body), text) {
		t.Fatalf("page does not show %q: %s", text, r.Body)
	}
}

func expectRedirect(t testing.TB, r response, to string) {
	t.Helper()
	if r.Status != http.StatusSeeOther || r.Header.Get("Location") != to {
		t.Fatalf("got %d to %q, want 303 to %q: %s", r.Status, r.Header.Get("Location"), to, r.Body)
	}
}

// setCookie is the named Set-Cookie of an answer, or nil.
func setCookie(r response, name string) *http.Cookie {
	for _, c := range (&http.Response{Header: r.Header}).Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// onlySessionsAudited fails unless the audit log holds nothing but console
// sign-ins and sign-outs: every refused change left no entry.
func onlySessionsAudited(t *testing.T, c *console) {
	t.Helper()
	r := c.get("/admin/audit")
	expectPage(t, r, 200, "<code>console.signin</code>")
	body := string(r.Body)
	entries := strings.Count(body, "<tr><td>")
	sessions := strings.Count(body, "<code>console.signin</code>") + strings.Count(body, "<code>console.signout</code>")
	if entries != sessions {
		t.Fatalf("the audit log has %d entries, %d of them sessions:\n%s", entries, sessions, body)
	}
}

// consoleMAC is a console form token as the console computes it: the
// HMAC-SHA256 of value under key, for one use (label: signin, csrf).
func consoleMAC(key []byte, label, value string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("tandem console " + label + "\x00" + value))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// cookieKeyedMAC is a token of the console's first scheme: keyed by the
// cookie itself, which anyone who can plant the cookie can compute.
func cookieKeyedMAC(cookie, label string) string {
	m := hmac.New(sha256.New, []byte(cookie))
	m.Write([]byte("tandem console " + label))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// mustSignInWith signs in with the password given and expects the overview.
func (c *console) mustSignInWith(email, password string) {
	c.t.Helper()
	expectRedirect(c.t, c.signIn(email, password), "/admin")
	expectPage(c.t, c.get("/admin"), 200, "Overview")
}
