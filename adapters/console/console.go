// Package console is the administrators' web console at /admin: HTML pages
// on the API's server (its routes join the web "routes" group), signed in
// with a cookie session of its own, every change made through the admin
// module's audited writes.
package console

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/base64"
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

	"tandem/adapters/web"
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
//go:embed templates/*.html templates/console.css
var templatesFS embed.FS

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

// Secret keys the console's CSRF tokens: TANDEM_CONSOLE_SECRET, or the one
// generated at the first start and kept in the database (core.Settings), so
// that every process behind a load balancer computes the same tokens.
// It is never a value from a request: a planted cookie alone gives no
// valid token.
type Secret []byte

// Config is what the console takes from the HTTP configuration; bootstrap
// makes it from httpapi.Config.
type Config struct {
	PublicURL   string // https: the cookies are Secure
	RateLimitIP int    // sign-ins per minute per IP, the API's auth routes' budget
}

// Deps is what the console reuses: the domain services and their audited
// writes, never storage; the readiness probes and its secret.
type Deps struct {
	fx.In
	Config   Config
	Secret   Secret
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
	// Traffic is this process's record of the last minutes (the Traffic page).
	Traffic *web.Traffic `optional:"true"`
	// Settings and Backups are what the Settings and Backups pages show,
	// made by bootstrap from the configuration.
	Settings Settings `optional:"true"`
	Backups  Backups  `optional:"true"`

	AuditedFlags    *web.AuditedFlags
	AuditedPolicies *web.AuditedPolicies
	AuditedFeedback *web.AuditedFeedback
	AuditedAccounts *admin.AuditedAccounts
}

// handler serves /admin.
type handler struct {
	Deps
	pages  map[string]*template.Template
	secure bool // cookies only over https, when the public URL is https
}

// NewHandler parses the pages; a secret shorter than MinSecret is refused.
func NewHandler(d Deps) (*handler, error) {
	if len(d.Secret) < MinSecret {
		return nil, errShortSecret(len(d.Secret))
	}
	pages, err := parsePages()
	if err != nil {
		return nil, err
	}
	// A value group has no order: the overview lists the probes by name.
	d.Probes = slices.Clone(d.Probes)
	slices.SortFunc(d.Probes, func(a, b Probe) int { return strings.Compare(a.Name, b.Name) })
	return &handler{Deps: d, pages: pages, secure: IsHTTPS(d.Config.PublicURL)}, nil
}

// IsHTTPS reports whether the public URL is https, the scheme compared
// without case as URL schemes are: "HTTPS://..." must not lose the cookie's
// Secure flag.
func IsHTTPS(publicURL string) bool {
	u, err := url.Parse(publicURL)
	return err == nil && strings.EqualFold(u.Scheme, "https")
}

// parsePages parses each page with the shared layout.
func parsePages() (map[string]*template.Template, error) {
	names, err := fs.Glob(templatesFS, "templates/*.html")
	if err != nil {
		return nil, err
	}
	pages := map[string]*template.Template{}
	for _, n := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if name == "layout" {
			continue
		}
		t, err := template.New(name).Funcs(funcs).ParseFS(templatesFS, "templates/layout.html", n)
		if err != nil {
			return nil, err
		}
		pages[name] = t
	}
	return pages, nil
}

// timeLayout is how every console page shows an instant: in UTC, to the
// minute, whatever zone the value carries, so that two pages (and two
// administrators) never show one moment two ways.
const timeLayout = "2006-01-02 15:04 UTC"

// when is the pages' one date function; a zero time is "—".
func when(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format(timeLayout)
}

var funcs = template.FuncMap{
	"when": when,
	"join": func(ss []string) string { return strings.Join(ss, "\n") },
	"has":  func(ps []core.Platform, p core.Platform) bool { return slices.Contains(ps, p) },
	"action": func(userID, path, label, class, csrf string) actionButton {
		return actionButton{UserID: userID, Path: path, Label: label, Class: class, CSRF: csrf}
	},
}

// actionButton is what the user page's "action" template draws.
type actionButton struct{ UserID, Path, Label, Class, CSRF string }

func (h *handler) Register(r fiber.Router) {
	g := r.Group("/admin", h.renderErrors) // headers runs for the whole app (the "headers" group)
	g.Get("/static/console.css", h.stylesheet)
	g.Get("/signin", h.signInPage)
	// The same per-IP budget as the API's /api/auth routes (one counter).
	g.Post("/signin", web.LimitPerIP(h.Limiter, "auth_ip", h.Config.RateLimitIP), h.signIn)
	s := g.Group("", h.session)
	s.Post("/signout", h.signOut)
	h.registerPages(s)
}

// headers marks every /admin answer: a strict CSP (no script, styles and
// forms only from here, no framing), and pages no cache keeps. It runs for
// the whole app (a web.Headers), before the body limit and the
// fail-fast breaker, so that their errors (413, 503), raised before the
// /admin group's own middleware, carry the headers too.
func headers(c *fiber.Ctx) error {
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
func (h *handler) renderErrors(c *fiber.Ctx) error {
	err := c.Next()
	if err == nil {
		return nil
	}
	e := web.AsError(err)
	if e.Kind == core.KindInternal || e.Kind == core.KindUnavailable {
		h.Log.Error("console request failed", web.LogIDs(c), zap.String("path", c.Path()), zap.Error(err))
	}
	msg := e.Message
	if e.Kind == core.KindInternal {
		msg = "internal error"
	}
	if e.Kind == core.KindRateLimited && e.RetryAfter > 0 {
		c.Set(fiber.HeaderRetryAfter, web.RetryAfter(e.RetryAfter))
	}
	c.Status(web.StatusOf(e.Kind))
	return h.render(c, "error", fiber.Map{"Status": web.StatusOf(e.Kind), "Message": msg})
}

// render writes a page; the layout reads .Admin and .CSRF when signed in.
func (h *handler) render(c *fiber.Ctx, page string, data fiber.Map) error {
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

func (h *handler) stylesheet(c *fiber.Ctx) error {
	b, err := templatesFS.ReadFile("templates/console.css")
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
func (h *handler) signInPage(c *fiber.Ctx) error {
	pre := randomToken()
	h.setCookie(c, consolePreCookie, pre, 10*time.Minute)
	return h.render(c, "signin", fiber.Map{"CSRF": h.mac("signin", pre)})
}

// signIn checks the form's CSRF pair, then the administrator's e-mail and
// password through accounts.LoginAdmin (counted attempts and the password
// check); only an administrator gets the session cookie. The new session
// is recorded in the audit log (AuditedAccounts.SignedIn); a refused
// sign-in is recorded too (admin.Service.SignInRefused).
func (h *handler) signIn(c *fiber.Ctx) error {
	pre := c.Cookies(consolePreCookie)
	if pre == "" || !sameToken(formValue(c, "csrf"), h.mac("signin", pre)) {
		return errCSRF()
	}
	cl := accounts.Client{IP: web.ClientIP(c), UserAgent: consoleUserAgent + "; " + c.Get(fiber.HeaderUserAgent)}
	p, token, err := h.Accounts.LoginAdmin(c.UserContext(), formValue(c, "email"), formValue(c, "password"), cl)
	if err != nil {
		e := core.As(err)
		if e.Kind == core.KindInternal || (e.Kind == core.KindUnavailable && e.RetryAfter == 0) {
			return err
		}
		if err := h.Admin.SignInRefused(c.UserContext(), formValue(c, "email"), cl.IP, e); err != nil {
			return err // every refusal is on record, or the answer is the log's failure
		}
		if e.RetryAfter > 0 {
			c.Set(fiber.HeaderRetryAfter, web.RetryAfter(e.RetryAfter))
		}
		fresh := randomToken()
		h.setCookie(c, consolePreCookie, fresh, 10*time.Minute)
		c.Status(web.StatusOf(e.Kind))
		return h.render(c, "signin", fiber.Map{"CSRF": h.mac("signin", fresh), "Error": e.Message, "Email": formValue(c, "email")})
	}
	if err := h.AuditedAccounts.SignedIn(c.UserContext(), p, token, cl.IP, cl.UserAgent); err != nil {
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
func (h *handler) session(c *fiber.Ctx) error {
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
		return core.Forbidden("forbidden", "admin.administratorsOnly", "administrators only")
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

// signOut ends the console session, recorded as console.signout.
func (h *handler) signOut(c *fiber.Ctx) error {
	token, _ := c.Locals(localConsoleToken).(string)
	if err := h.AuditedAccounts.SignOut(c.UserContext(), token); err != nil {
		return err
	}
	h.clearCookie(c, consoleCookie)
	return c.Redirect("/admin/signin", fiber.StatusSeeOther)
}

func (h *handler) setCookie(c *fiber.Ctx, name, value string, ttl time.Duration) {
	c.Cookie(&fiber.Cookie{Name: name, Value: value, Path: "/admin", Expires: time.Now().Add(ttl), MaxAge: int(ttl.Seconds()),
		HTTPOnly: true, Secure: h.secure, SameSite: fiber.CookieSameSiteStrictMode})
}

func (h *handler) clearCookie(c *fiber.Ctx, name string) {
	c.Cookie(&fiber.Cookie{Name: name, Value: "", Path: "/admin", Expires: time.Unix(0, 0), MaxAge: -1,
		HTTPOnly: true, Secure: h.secure, SameSite: fiber.CookieSameSiteStrictMode})
}

// csrfToken is the session's CSRF token: the MAC of the session cookie.
// Only a page served to the cookie's holder can know it, it needs no
// storage, and every process computes the same one. The session token is
// unguessable already; keying with the secret as well keeps one rule for
// every console token: the key never comes from the request.
func (h *handler) csrfToken(c *fiber.Ctx) string {
	token, _ := c.Locals(localConsoleToken).(string)
	return h.mac("csrf", token)
}

// mac is the MAC of value under the console's secret, for one use (label),
// so that a token of one use is never valid for another.
func (h *handler) mac(label, value string) string {
	m := hmac.New(sha256.New, h.Secret)
	m.Write([]byte("tandem console " + label + "\x00"))
	m.Write([]byte(value))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// MinSecret is the shortest console secret accepted, in bytes.
const MinSecret = 32

type errShortSecret int

func (n errShortSecret) Error() string {
	return "console: the secret has " + strconv.Itoa(int(n)) + " bytes, fewer than " + strconv.Itoa(MinSecret)
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
	return core.Forbidden("forbidden", "console.formHasExpiredDidNot", "the form has expired or did not come from this console: reload the page and try again")
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
