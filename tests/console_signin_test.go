// This file holds the console's sign-in: its own attempt counter and the
// per-IP budget it shares with the auth routes, API failures that never
// lock it, its audit entry, the form token (a planted cookie refused, other
// instances accepted) and TANDEM_CONSOLE_SECRET.

package tests

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"go.uber.org/fx"

	"tandem/modules/accounts"
	"tandem/modules/admin"
)

// The console counts its own sign-ins per (e-mail, client IP): its
// failures never lock the API's login, nor the API's the console.
func TestConsoleSignInIsRateLimitedOnItsOwn(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		h.newUser(bossEmail)
		c := h.console(t)
		for range 10 {
			expectPage(t, c.signIn(bossEmail, "wrong-password-1"), 401, "invalid e-mail or password")
		}
		r := c.signIn(bossEmail, pw)
		expectPage(t, r, 429, "")
		if r.Header.Get("Retry-After") == "" || setCookie(r, "tandem_console") != nil {
			t.Fatalf("429 without Retry-After or with a cookie: %v", r.Header)
		}
		// The API's login has its own counter.
		expect(t, h.post("/api/auth/login/email", "", map[string]any{"email": bossEmail, "password": pw}), 200, "")
	}, withAdmins(bossEmail))
}

// Failed API logins for an administrator's e-mail never lock the console
// (the module's tests cover the ceiling across addresses too).
func TestAPILoginFailuresNeverLockTheConsole(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		h.newUser(bossEmail)
		for range 10 {
			expect(t, h.post("/api/auth/login/email", "", map[string]any{"email": bossEmail, "password": "wrong-password-1"}), 401, "")
		}
		expect(t, h.post("/api/auth/login/email", "", map[string]any{"email": bossEmail, "password": pw}), 429, "")
		h.console(t).mustSignIn(bossEmail)
	}, withAdmins(bossEmail))
}

func TestConsoleSignInSharesThePerIPBudgetOfTheAuthRoutes(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		h.newUser(bossEmail) // sign-up and verification spend two of the IP's requests
		c := h.console(t)
		expectPage(t, c.signIn(bossEmail, "wrong-password-1"), 401, "invalid e-mail or password")
		expect(t, h.post("/api/auth/login/email", "", map[string]any{"email": bossEmail, "password": "wrong-password-1"}), 429, "")
		r := c.signIn(bossEmail, pw)
		expectPage(t, r, 429, "")
		if r.Header.Get("Retry-After") == "" || setCookie(r, "tandem_console") != nil {
			t.Fatalf("429 without Retry-After or with a cookie: %v", r.Header)
		}
	}, withAdmins(bossEmail), withEnv("TANDEM_RATE_LIMIT_IP", "3"))
}

// A console session exists only with its audit entry: when the entry
// cannot be stored, the sign-in fails and the session it made is revoked.
func TestConsoleSignInWithoutItsAuditEntryFails(t *testing.T) {
	eachProfileWith(t, func(t *testing.T, h *harness, acc *accounts.Service) {
		boss := h.newUser(bossEmail)
		c := h.console(t)
		r := c.signIn(bossEmail, pw)
		if r.Status != 500 {
			t.Fatalf("sign-in with a broken audit log: %d %s", r.Status, r.Body)
		}
		if _, set := c.cookies["tandem_console"]; set {
			t.Fatal("a session cookie was handed out")
		}
		sessions, err := acc.Sessions(context.Background(), boss.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sessions {
			if strings.Contains(s.UserAgent, "console") {
				t.Fatalf("the console session was kept: %+v", s)
			}
		}
	}, withAdmins(bossEmail), withFx(fx.Decorate(func(l admin.AuditLog) admin.AuditLog { return brokenAudit{l} })))
}

// brokenAudit fails to store an entry, as a database that lost its disk would.
type brokenAudit struct{ admin.AuditLog }

func (brokenAudit) Append(context.Context, admin.Entry) error { return errDiskOnFire }

// consoleSessions are a user's console sessions (the app's are not).
func consoleSessions(t *testing.T, acc *accounts.Service, userID string) []accounts.Token {
	t.Helper()
	sessions, err := acc.Sessions(context.Background(), userID)
	if err != nil {
		t.Fatal(err)
	}
	var out []accounts.Token
	for _, s := range sessions {
		if strings.Contains(s.UserAgent, "console") {
			out = append(out, s)
		}
	}
	return out
}

// A stranger who can plant the sign-in form's cookie (a sibling subdomain,
// a plain-http hop) must not be able to compute the form's token from it:
// the token is keyed by the server's secret, not by the cookie.
func TestConsoleSignInRefusesATokenComputedFromAPlantedCookie(t *testing.T) {
	eachProfileWith(t, func(t *testing.T, h *harness, acc *accounts.Service) {
		boss := h.newUser(bossEmail)
		c := h.console(t)
		const planted = "planted-by-a-stranger"
		c.cookies["tandem_console_pre"] = planted
		r := c.postRaw("/admin/signin", url.Values{"csrf": {cookieKeyedMAC(planted, "signin")}, "email": {bossEmail}, "password": {pw}})
		expectPage(t, r, 403, "form has expired")
		if ck := setCookie(r, "tandem_console"); ck != nil {
			t.Fatalf("signed in with a planted cookie: %+v", ck)
		}
		if s := consoleSessions(t, acc, boss.ID); len(s) != 0 {
			t.Fatalf("console sessions %+v", s)
		}
		expectRedirect(t, c.get("/admin"), "/admin/signin")

		// The form's own token works, and nothing but the sign-in is audited.
		c.mustSignIn(bossEmail)
		onlySessionsAudited(t, c)
		// The session's CSRF token is not the session cookie's own MAC either.
		bad := url.Values{"csrf": {cookieKeyedMAC(c.cookies["tandem_console"], "csrf")}, "key": {"sneaky"}, "name": {"Sneaky"}}
		expectPage(t, c.postRaw("/admin/flags", bad), 403, "form has expired")
		expect(t, h.get("/api/feature-flags?action=all", boss.Token), 200, `{"success":true,"flags":[]}`)
	}, withAdmins(bossEmail))
}

// Processes behind one load balancer share the console's secret through
// the database: a form served by one is accepted by another.
func TestConsoleInstancesAcceptEachOthersSignInForm(t *testing.T) {
	eachSharedProfile(t, func(t *testing.T, p profile) {
		first := newHarness(t, p, withAdmins(bossEmail))
		second := newHarness(t, p, withAdmins(bossEmail), sharingDB(first))
		first.newUser(bossEmail)
		c := first.console(t)
		expectPage(t, c.get("/admin/signin"), 200, "Sign in")
		c.h = second // the form's answer lands on the other process
		expectRedirect(t, c.post("/admin/signin", url.Values{"email": {bossEmail}, "password": {pw}}), "/admin")
		expectPage(t, c.get("/admin/flags"), 200, "Feature flags")
		// ... and the session's forms too, either way.
		c.h = first
		expectRedirect(t, c.post("/admin/flags", url.Values{"key": {"shared"}, "name": {"Shared"}}), "/admin/flags/shared?saved=1")
	})
}

// TANDEM_CONSOLE_SECRET, when set, is the key: a token computed from it is
// accepted, one from any other key is not.
func TestConsoleSecretFromTheEnvironmentIsTheKey(t *testing.T) {
	parallel(t)
	const secret = "a-deployment-secret-of-32-bytes-or-more"
	eachProfile(t, func(t *testing.T, h *harness) {
		h.newUser(bossEmail)
		for _, tc := range []struct {
			name   string
			key    string
			status int
		}{
			{name: "another key", key: strings.Repeat("k", 40), status: 403},
			{name: "the configured secret", key: secret, status: 303},
		} {
			t.Run(tc.name, func(t *testing.T) {
				c := h.console(t)
				c.cookies["tandem_console_pre"] = "pre-" + tc.name
				r := c.postRaw("/admin/signin", url.Values{"csrf": {consoleMAC([]byte(tc.key), "signin", "pre-"+tc.name)},
					"email": {bossEmail}, "password": {pw}})
				if r.Status != tc.status {
					t.Fatalf("status %d, want %d: %s", r.Status, tc.status, r.Body)
				}
				if (setCookie(r, "tandem_console") != nil) != (tc.status == 303) {
					t.Fatalf("session cookie %v", setCookie(r, "tandem_console"))
				}
			})
		}
	}, withAdmins(bossEmail), withEnv("TANDEM_CONSOLE_SECRET", secret))
}
