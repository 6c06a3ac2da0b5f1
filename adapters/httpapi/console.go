package httpapi

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/base64"
	"errors"
	"html/template"
	"io/fs"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"go.uber.org/fx"
	"go.uber.org/zap"

	"tandem/core"
	"tandem/modules/accounts"
	"tandem/modules/admin"
	"tandem/modules/feedback"
	"tandem/modules/flags"
	"tandem/modules/partners"
	"tandem/modules/premium"
	"tandem/modules/versions"
)

// The console's templates and its one stylesheet, served by the binary.
// There is no script at all: every action is a plain form, so the CSP can
// forbid scripts outright.
//
//go:embed console/*.html console/console.css
var consoleFS embed.FS

const (
	consoleCookie    = "tandem_console"     // the session: an accounts token, stored hashed
	consolePreCookie = "tandem_console_pre" // the sign-in form's CSRF secret, before any session
	consoleCSP       = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; " +
		"frame-ancestors 'none'; base-uri 'none'"
	localConsoleToken = "consoleToken"
	consoleUserAgent  = "admin console"
)

// Probe is one dependency the console's overview reports on (database,
// blob store, mail, push, bus); bootstrap contributes them to the "probes"
// group. Check returns nil when the dependency can do its work.
type Probe struct {
	Name  string
	Check func(ctx context.Context) error
}

// ConsoleSecret keys the console's CSRF tokens: TANDEM_CONSOLE_SECRET, or
// the one generated at the first start and kept in the database (Settings),
// so that every process behind a load balancer computes the same tokens.
// It is never a value from a request: a planted cookie alone gives no
// valid token.
type ConsoleSecret []byte

// Settings stores values every process of a deployment shares.
type Settings interface {
	// Ensure stores value under name unless a value is stored already, and
	// returns the stored one: processes racing on an empty store agree.
	Ensure(ctx context.Context, name, value string) (string, error)
}

// ConsoleDeps is what the console reuses: the domain services, never
// storage, the readiness probes and its secret.
type ConsoleDeps struct {
	fx.In
	Config   Config
	Secret   ConsoleSecret
	Log      *zap.Logger
	Accounts *accounts.Service
	Admin    *admin.Service
	Flags    *flags.Service
	Versions *versions.Service
	Feedback *feedback.Service
	Partners *partners.Service
	Premium  *premium.Service
	Limiter  core.Limiter
	Probes   []Probe `group:"probes"`
}

// consoleHandler serves /admin, the administrators' web console.
type consoleHandler struct {
	ConsoleDeps
	pages  map[string]*template.Template
	secure bool // cookies only over https, when the public URL is https
}

func NewConsoleHandler(d ConsoleDeps) (*consoleHandler, error) {
	if len(d.Secret) < MinConsoleSecret {
		return nil, errShortSecret(len(d.Secret))
	}
	pages, err := parseConsolePages()
	if err != nil {
		return nil, err
	}
	// A value group has no order: the overview lists the probes by name.
	d.Probes = slices.Clone(d.Probes)
	slices.SortFunc(d.Probes, func(a, b Probe) int { return strings.Compare(a.Name, b.Name) })
	return &consoleHandler{ConsoleDeps: d, pages: pages, secure: isHTTPS(d.Config.PublicURL)}, nil
}

// isHTTPS reports whether the public URL is https, the scheme compared
// without case as URL schemes are: "HTTPS://..." must not lose the cookie's
// Secure flag.
func isHTTPS(publicURL string) bool {
	u, err := url.Parse(publicURL)
	return err == nil && strings.EqualFold(u.Scheme, "https")
}

// parseConsolePages parses each page with the shared layout.
func parseConsolePages() (map[string]*template.Template, error) {
	names, err := fs.Glob(consoleFS, "console/*.html")
	if err != nil {
		return nil, err
	}
	pages := map[string]*template.Template{}
	for _, n := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(n, "console/"), ".html")
		if name == "layout" {
			continue
		}
		t, err := template.New(name).Funcs(consoleFuncs).ParseFS(consoleFS, "console/layout.html", n)
		if err != nil {
			return nil, err
		}
		pages[name] = t
	}
	return pages, nil
}

var consoleFuncs = template.FuncMap{
	"when": func(t time.Time) string {
		if t.IsZero() {
			return "—"
		}
		return t.UTC().Format("2006-01-02 15:04 UTC")
	},
	"join": func(ss []string) string { return strings.Join(ss, "\n") },
	"has":  func(ps []core.Platform, p core.Platform) bool { return slices.Contains(ps, p) },
}

func (h *consoleHandler) Register(r fiber.Router) {
	g := r.Group("/admin", h.renderErrors) // consoleHeaders runs globally, in newApp
	g.Get("/static/console.css", h.stylesheet)
	g.Get("/signin", h.signInPage)
	// The same per-IP budget as the API's /api/auth routes (one counter).
	g.Post("/signin", limitPerIP(h.Limiter, "auth_ip", h.Config.RateLimitIP), h.signIn)
	s := g.Group("", h.session)
	s.Post("/signout", h.signOut)
	h.registerPages(s)
}

// consoleHeaders marks every /admin answer: a strict CSP (no script,
// styles and forms only from here, no framing), and pages no cache keeps.
// It runs for the whole app, before the body limit and the fail-fast
// breaker, so that their errors (413, 503), raised before the /admin
// group's own middleware, carry the headers too.
func consoleHeaders(c *fiber.Ctx) error {
	if isConsole(c.Path()) {
		c.Set("Content-Security-Policy", consoleCSP)
		c.Set(fiber.HeaderXFrameOptions, "DENY")
		c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
		c.Set(fiber.HeaderReferrerPolicy, "same-origin")
		c.Set(fiber.HeaderCacheControl, "no-store")
	}
	return c.Next()
}

// isConsole matches /admin and below the way Fiber routes: case-insensitively.
func isConsole(path string) bool {
	const prefix = "/admin/"
	return len(path) >= len(prefix) && strings.EqualFold(path[:len(prefix)], prefix) || strings.EqualFold(path, "/admin")
}

// renderErrors renders a failed console request as an HTML page with the
// status the API would give; internal causes go to the log only.
func (h *consoleHandler) renderErrors(c *fiber.Ctx) error {
	err := c.Next()
	if err == nil {
		return nil
	}
	var fe *fiber.Error
	e := core.As(err)
	if errors.As(err, &fe) {
		e = fromFiber(fe)
	}
	if e.Kind == core.KindInternal || e.Kind == core.KindUnavailable {
		h.Log.Error("console request failed", zap.String("request_id", requestIDOf(c)), zap.String("path", c.Path()), zap.Error(err))
	}
	msg := e.Message
	if e.Kind == core.KindInternal {
		msg = "internal error"
	}
	if e.Kind == core.KindRateLimited && e.RetryAfter > 0 {
		c.Set(fiber.HeaderRetryAfter, retryAfterSeconds(e.RetryAfter))
	}
	c.Status(StatusOf(e.Kind))
	return h.render(c, "error", fiber.Map{"Status": StatusOf(e.Kind), "Message": msg})
}

// render writes a page; the layout reads .Admin and .CSRF when signed in.
func (h *consoleHandler) render(c *fiber.Ctx, page string, data fiber.Map) error {
	t, ok := h.pages[page]
	if !ok {
		return core.Internal(errUnknownPage(page))
	}
	if p, ok := core.PrincipalFrom(c.UserContext()); ok && p.Admin {
		data["Admin"] = p.Email
		data["CSRF"] = h.csrfToken(c)
	}
	data["Page"] = page
	var b strings.Builder
	if err := t.ExecuteTemplate(&b, "layout", data); err != nil {
		return core.Internal(err)
	}
	c.Type("html", "utf-8")
	return c.SendString(b.String())
}

func (h *consoleHandler) stylesheet(c *fiber.Ctx) error {
	b, err := consoleFS.ReadFile("console/console.css")
	if err != nil {
		return core.Internal(err)
	}
	c.Set(fiber.HeaderCacheControl, "public, max-age=300")
	c.Type("css", "utf-8")
	return c.Send(b)
}

// signInPage shows the form with a fresh pre-session value in a cookie
// and, in the form, its MAC under the server's secret: a login CSRF needs
// both, and planting the cookie does not give the MAC.
func (h *consoleHandler) signInPage(c *fiber.Ctx) error {
	pre := randomToken()
	h.setCookie(c, consolePreCookie, pre, 10*time.Minute)
	return h.render(c, "signin", fiber.Map{"CSRF": h.mac("signin", pre)})
}

// signIn checks the form's CSRF pair, then the administrator's e-mail and
// password through accounts.LoginAdmin (counted attempts and the password
// check); only an administrator gets the session cookie. The new session
// is recorded in the audit log (console.signin, with the client's
// address); a session whose entry cannot be stored is revoked at once and
// the sign-in fails. A refused sign-in is recorded too
// (console.signin_failed: the e-mail as typed, the address, the reason).
func (h *consoleHandler) signIn(c *fiber.Ctx) error {
	pre := c.Cookies(consolePreCookie)
	if pre == "" || !sameToken(formValue(c, "csrf"), h.mac("signin", pre)) {
		return errCSRF()
	}
	cl := accounts.Client{IP: clientIP(c), UserAgent: consoleUserAgent + "; " + c.Get(fiber.HeaderUserAgent)}
	p, token, err := h.Accounts.LoginAdmin(c.UserContext(), formValue(c, "email"), formValue(c, "password"), cl)
	if err != nil {
		e := core.As(err)
		if e.Kind == core.KindInternal || (e.Kind == core.KindUnavailable && e.RetryAfter == 0) {
			return err
		}
		if e.Kind != core.KindUnavailable { // shed (503 busy): no password was checked
			failure := admin.SignInFailure{Email: formValue(c, "email"), IP: cl.IP, Reason: signInRefusal(e.Kind)}
			if err := h.Admin.SignInFailed(c.UserContext(), failure); err != nil {
				return err // every refusal is on record, or the answer is the log's failure
			}
		}
		if e.RetryAfter > 0 {
			c.Set(fiber.HeaderRetryAfter, retryAfterSeconds(e.RetryAfter))
		}
		fresh := randomToken()
		h.setCookie(c, consolePreCookie, fresh, 10*time.Minute)
		c.Status(StatusOf(e.Kind))
		return h.render(c, "signin", fiber.Map{"CSRF": h.mac("signin", fresh), "Error": e.Message, "Email": formValue(c, "email")})
	}
	if err := h.auditSignIn(c, p, token, cl); err != nil {
		return err
	}
	h.clearCookie(c, consolePreCookie)
	h.setCookie(c, consoleCookie, token, accounts.ConsoleTTL)
	return c.Redirect("/admin", fiber.StatusSeeOther)
}

// session admits a request that carries an administrator's live session
// cookie; anyone else is sent to sign in (403 for a signed-in
// non-administrator, such as one whose grant was removed). Every POST must
// carry the session's CSRF token, else 403 and nothing runs.
func (h *consoleHandler) session(c *fiber.Ctx) error {
	token := c.Cookies(consoleCookie)
	if token == "" {
		return c.Redirect("/admin/signin", fiber.StatusSeeOther)
	}
	p, err := h.Accounts.AuthenticateConsole(c.UserContext(), token)
	if core.IsKind(err, core.KindUnauthorized) {
		h.clearCookie(c, consoleCookie)
		return c.Redirect("/admin/signin", fiber.StatusSeeOther)
	}
	if err != nil {
		return err
	}
	if !p.Admin {
		return core.Forbidden("forbidden", "administrators only")
	}
	c.Locals(localConsoleToken, token)
	c.SetUserContext(core.WithPrincipal(c.UserContext(), p))
	// From the body only: a token must never be accepted from a URL (URLs
	// end up in logs, history and Referer headers).
	if c.Method() == fiber.MethodPost && !sameToken(formValue(c, "csrf"), h.csrfToken(c)) {
		return errCSRF()
	}
	return c.Next()
}

// formValue is a field of a POSTed form, from the body only. c.FormValue
// would look at the query string first, so a link could pre-fill or
// override what a form sends.
func formValue(c *fiber.Ctx, name string) string {
	return string(c.Request().PostArgs().Peek(name))
}

func (h *consoleHandler) auditSignIn(c *fiber.Ctx, p core.Principal, token string, cl accounts.Client) error {
	ctx := core.WithPrincipal(c.UserContext(), p)
	err := h.Admin.Apply(ctx, admin.Change{Action: "console.signin", Target: "user:" + p.UserID},
		func(context.Context) (any, error) {
			return map[string]string{"ip": cl.IP, "userAgent": cl.UserAgent}, nil
		})
	if err != nil {
		_ = h.Accounts.Logout(context.WithoutCancel(ctx), p.UserID, token, false) // no session without its entry
	}
	return err
}

// signOut ends the console session, recorded as console.signout.
func (h *consoleHandler) signOut(c *fiber.Ctx) error {
	p, _ := core.PrincipalFrom(c.UserContext())
	token, _ := c.Locals(localConsoleToken).(string)
	err := h.Admin.Apply(c.UserContext(), admin.Change{Action: "console.signout", Target: "user:" + p.UserID},
		func(ctx context.Context) (any, error) { return nil, h.Accounts.Logout(ctx, p.UserID, token, false) })
	if err != nil {
		return err
	}
	h.clearCookie(c, consoleCookie)
	return c.Redirect("/admin/signin", fiber.StatusSeeOther)
}

func (h *consoleHandler) setCookie(c *fiber.Ctx, name, value string, ttl time.Duration) {
	c.Cookie(&fiber.Cookie{Name: name, Value: value, Path: "/admin", Expires: time.Now().Add(ttl), MaxAge: int(ttl.Seconds()),
		HTTPOnly: true, Secure: h.secure, SameSite: fiber.CookieSameSiteStrictMode})
}

func (h *consoleHandler) clearCookie(c *fiber.Ctx, name string) {
	c.Cookie(&fiber.Cookie{Name: name, Value: "", Path: "/admin", Expires: time.Unix(0, 0), MaxAge: -1,
		HTTPOnly: true, Secure: h.secure, SameSite: fiber.CookieSameSiteStrictMode})
}

// csrfToken is the session's CSRF token: the MAC of the session cookie.
// Only a page served to the cookie's holder can know it, it needs no
// storage, and every process computes the same one. The session token is
// unguessable already; keying with the secret as well keeps one rule for
// every console token: the key never comes from the request.
func (h *consoleHandler) csrfToken(c *fiber.Ctx) string {
	token, _ := c.Locals(localConsoleToken).(string)
	return h.mac("csrf", token)
}

// mac is the MAC of value under the console's secret, for one use (label),
// so that a token of one use is never valid for another.
func (h *consoleHandler) mac(label, value string) string {
	m := hmac.New(sha256.New, h.Secret)
	m.Write([]byte("tandem console " + label + "\x00"))
	m.Write([]byte(value))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// MinConsoleSecret is the shortest console secret accepted, in bytes.
const MinConsoleSecret = 32

type errShortSecret int

func (n errShortSecret) Error() string {
	return "console: the secret has " + strconv.Itoa(int(n)) + " bytes, fewer than " + strconv.Itoa(MinConsoleSecret)
}

// signInRefusal is the reason a refused sign-in is recorded with.
func signInRefusal(k core.Kind) string {
	switch k {
	case core.KindUnauthorized:
		return "wrong_credentials" // an unknown e-mail or a wrong password: the same answer, the same reason
	case core.KindForbidden:
		return "not_administrator"
	case core.KindRateLimited:
		return "rate_limited"
	case core.KindInvalid:
		return "incomplete"
	}
	return "refused"
}

func sameToken(got, want string) bool {
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

func randomToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

func errCSRF() error {
	return core.Forbidden("forbidden", "the form has expired or did not come from this console: reload the page and try again")
}

func retryAfterSeconds(d time.Duration) string {
	return strconv.Itoa(int((d + time.Second - 1) / time.Second))
}

type errUnknownPage string

func (e errUnknownPage) Error() string { return "console: no page " + string(e) }

// back redirects to the page the form came from (a path of the console only).
func back(c *fiber.Ctx, path string, query url.Values) error {
	if len(query) > 0 {
		path += "?" + query.Encode()
	}
	return c.Redirect(path, fiber.StatusSeeOther)
}
