package tests

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"tandem/modules/accounts"
)

func TestConsoleSignInSetsAStrictSessionCookie(t *testing.T) {
	parallel(t)
	cases := []struct {
		name, publicURL string
		secure          bool
	}{
		{name: "http", publicURL: "http://localhost:8080"},
		{name: "https", publicURL: "https://tandem.example.com", secure: true},
		{name: "HTTPS in capitals", publicURL: "HTTPS://tandem.example.com", secure: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			eachProfile(t, func(t *testing.T, h *harness) {
				h.newUser(bossEmail)
				c := h.console(t)
				r := c.signIn(bossEmail, pw)
				expectRedirect(t, r, "/admin")
				ck := setCookie(r, "tandem_console")
				if ck == nil || ck.Value == "" || !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.Secure != tc.secure ||
					ck.Path != "/admin" {
					t.Fatalf("session cookie %+v", ck)
				}
				page := c.get("/admin")
				expectPage(t, page, 200, "Overview")
				if strings.Contains(string(page.Body), ck.Value) {
					t.Fatal("the page shows the session token")
				}
				if strings.Contains(string(page.Body), "<script") {
					t.Fatal("the console has a script")
				}
			}, withAdmins(bossEmail), withEnv("TANDEM_PUBLIC_URL", tc.publicURL))
		})
	}
}

func TestConsoleRefusesNonAdministrators(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		h.newUser(bossEmail)
		h.newUser("ann@example.com")
		cases := []struct {
			name, email, password string
			status                int
			text                  string
		}{
			{name: "a user who is no administrator", email: "ann@example.com", password: pw, status: 403, text: "administrators only"},
			{name: "a wrong password", email: bossEmail, password: "wrong-password-1", status: 401, text: "invalid e-mail or password"},
			{name: "an unknown e-mail", email: "nobody@example.com", password: pw, status: 401, text: "invalid e-mail or password"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				c := h.console(t)
				r := c.signIn(tc.email, tc.password)
				expectPage(t, r, tc.status, tc.text)
				if ck := setCookie(r, "tandem_console"); ck != nil {
					t.Fatalf("got a session cookie %+v", ck)
				}
				expectRedirect(t, c.get("/admin"), "/admin/signin")
			})
		}
		// Ann's own (app) token, as a console cookie, opens nothing either.
		_, token := h.signUpAgain(t, "ann@example.com")
		c := h.console(t)
		c.cookies["tandem_console"] = token
		expectRedirect(t, c.get("/admin"), "/admin/signin")
	}, withAdmins(bossEmail))
}

// signUpAgain logs in through the API and returns the user id and token.
func (h *harness) signUpAgain(t *testing.T, email string) (string, string) {
	t.Helper()
	r := h.post("/api/auth/login/email", "", map[string]any{"email": email, "password": pw})
	expect(t, r, 200, "")
	m := r.JSON(t)
	return m["userId"].(string), m["token"].(string)
}

func TestConsoleWithoutASessionSendsToSignIn(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		boss := h.newUser(bossEmail)
		c := h.console(t)
		for _, path := range []string{"/admin", "/admin/flags", "/admin/versions", "/admin/feedback", "/admin/users", "/admin/audit"} {
			expectRedirect(t, c.get(path), "/admin/signin")
		}
		expectRedirect(t, c.postRaw("/admin/flags", url.Values{"key": {"sneaky"}, "name": {"Sneaky"}, "isEnabled": {"on"}}), "/admin/signin")
		c.cookies["tandem_console"] = "not-a-session"
		expectRedirect(t, c.get("/admin"), "/admin/signin")
		expect(t, h.get("/api/feature-flags?action=all", boss.Token), 200, `{"success":true,"flags":[]}`)
	}, withAdmins(bossEmail))
}

func TestConsoleFormsNeedTheSessionCSRFToken(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		boss := h.newUser(bossEmail)
		c := h.console(t)
		// The sign-in form has its own token.
		c.get("/admin/signin")
		expectPage(t, c.postRaw("/admin/signin", url.Values{"email": {bossEmail}, "password": {pw}}), 403, "form has expired")
		c.mustSignIn(bossEmail)
		other := h.console(t)
		other.mustSignIn(bossEmail) // another session's token is wrong here
		flag := url.Values{"key": {"sneaky"}, "name": {"Sneaky"}, "isEnabled": {"on"}}
		for name, token := range map[string][]string{"missing": nil, "empty": {""}, "wrong": {"x" + c.csrf},
			"another session's": {other.csrf}} {
			t.Run(name, func(t *testing.T) {
				f := url.Values{}
				for k, v := range flag {
					f[k] = v
				}
				if token != nil {
					f["csrf"] = token
				}
				expectPage(t, c.postRaw("/admin/flags", f), 403, "form has expired")
			})
		}
		expect(t, h.get("/api/feature-flags?action=all", boss.Token), 200, `{"success":true,"flags":[]}`)
		onlySessionsAudited(t, c)
		// Sign-out is a form too.
		expectPage(t, c.postRaw("/admin/signout", url.Values{}), 403, "form has expired")
		expectPage(t, c.get("/admin"), 200, "Overview")
	}, withAdmins(bossEmail))
}

func TestConsoleSignOutEndsTheSession(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		h.newUser(bossEmail)
		c := h.console(t)
		c.mustSignIn(bossEmail)
		cookie := c.cookies["tandem_console"]
		h.Clock.Advance(time.Second) // the log is newest first by time; ids of one instant have no order
		expectRedirect(t, c.post("/admin/signout", nil), "/admin/signin")
		h.Clock.Advance(time.Second)
		c.mustSignIn(bossEmail)
		audit := string(c.get("/admin/audit").Body) // newest first
		signedIn := strings.Index(audit, "<code>console.signin</code>")
		signedOut := strings.Index(audit, "<code>console.signout</code>")
		if signedIn < 0 || signedOut < signedIn || strings.Count(audit, "<code>console.signin</code>") != 2 ||
			!strings.Contains(audit, `class="done"`) {
			t.Fatalf("the sessions are not in the audit log:\n%s", audit)
		}
		expectRedirect(t, c.post("/admin/signout", nil), "/admin/signin")
		if _, kept := c.cookies["tandem_console"]; kept {
			t.Fatal("the cookie was not cleared")
		}
		replay := h.console(t)
		replay.cookies["tandem_console"] = cookie
		expectRedirect(t, replay.get("/admin"), "/admin/signin")
		expectRedirect(t, replay.postRaw("/admin/flags", url.Values{"csrf": {c.csrf}, "key": {"late"}, "name": {"Late"}}),
			"/admin/signin")
	}, withAdmins(bossEmail))
}

// A console session is no API token and an app token no console session: a
// token that leaks from a phone opens no console, and the console's cookie
// calls no API.
func TestConsoleSessionsAndAppTokensAreApart(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		boss := h.newUser(bossEmail)
		c := h.console(t)
		c.mustSignIn(bossEmail)
		expect(t, h.get("/api/users/user/"+boss.ID, c.cookies["tandem_console"]), 401,
			errBody("unauthorized", "missing, invalid or expired token"))

		stolen := h.console(t)
		stolen.cookies["tandem_console"] = boss.Token
		expectRedirect(t, stolen.get("/admin/users"), "/admin/signin")
		expectRedirect(t, stolen.postRaw("/admin/flags", url.Values{"key": {"stolen"}, "name": {"Stolen"}}), "/admin/signin")
		expect(t, h.get("/api/feature-flags/stolen", ""), 404, "")
	}, withAdmins(bossEmail))
}

func TestConsoleAccessEndsWithTheGrant(t *testing.T) {
	eachProfileWith(t, func(t *testing.T, h *harness, acc *accounts.Service) {
		ann := h.newUser("ann@example.com")
		ctx := context.Background()
		if err := acc.SetAdmin(ctx, "ann@example.com", true); err != nil {
			t.Fatal(err)
		}
		c := h.console(t)
		c.mustSignIn("ann@example.com")
		if err := acc.SetAdmin(ctx, "ann@example.com", false); err != nil {
			t.Fatal(err)
		}
		expectPage(t, c.get("/admin"), 403, "administrators only")
		expectPage(t, c.post("/admin/flags", url.Values{"key": {"late"}, "name": {"Late"}}), 403, "administrators only")
		for _, path := range []string{"/admin/users?q=ann", "/admin/users/" + ann.ID} {
			r := c.get(path)
			expectPage(t, r, 403, "administrators only")
			if strings.Contains(string(r.Body), "ann@example.com") {
				t.Fatalf("%s shows an account to a non-administrator: %s", path, r.Body)
			}
		}
		expectPage(t, h.console(t).signIn("ann@example.com", pw), 403, "administrators only")
	})
}

func TestConsoleChangesShowThroughTheAPIAndTheAuditLog(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		boss := h.newUser(bossEmail)
		ann := h.newUser("ann@example.com")
		c := h.console(t)
		c.mustSignIn(bossEmail)

		// A flag, created on for everyone, then edited down to nobody.
		expectPage(t, c.get("/admin/flags"), 200, "Create a flag")
		expectRedirect(t, c.post("/admin/flags", url.Values{"key": {"new_home"}, "name": {"New home"}, "isEnabled": {"on"},
			"rolloutPercentage": {"100"}}), "/admin/flags/new_home?saved=1")
		h.Clock.Advance(time.Second) // the audit log orders by time
		expect(t, h.get("/api/feature-flags?flag=new_home&userId="+ann.ID, ""), 200, `{"enabled":true,"message":"<string>","flagKey":"new_home","flag":"<any>"}`)
		expectPage(t, c.get("/admin/flags/new_home?rollout=50&sample=1000"), 200, "enables <strong>1000</strong> of 1000 sample users")
		expectRedirect(t, c.post("/admin/flags/new_home", url.Values{"name": {"New home"}, "isEnabled": {"on"},
			"rolloutPercentage": {"0"}}), "/admin/flags/new_home?saved=1")
		h.Clock.Advance(time.Second)
		expect(t, h.get("/api/feature-flags?flag=new_home&userId="+ann.ID, ""), 200, `{"enabled":false,"message":"<string>","flagKey":"new_home","flag":"<any>"}`)
		expectPage(t, c.post("/admin/flags", url.Values{"key": {"new_home"}, "name": {"Again"}}), 409, "")
		h.Clock.Advance(time.Second)

		// A version policy: 1.0.0 must now update on iOS.
		expectRedirect(t, c.post("/admin/versions/ios", url.Values{"minRequiredVersion": {"2.0.0"}, "recommendedVersion": {"2.1.0"},
			"latestVersion": {"2.2.0"}, "downloadUrl": {"https://apps.apple.com/app/tandem"}, "updateMessage": {"Please update"}}),
			"/admin/versions?saved=ios")
		h.Clock.Advance(time.Second)
		expect(t, h.get("/api/version-check?platform=ios&version=1.0.0", ""), 200,
			`{"updateRequired":true,"updateRecommended":"<bool>","canContinue":false,"updateType":"<any>",
			"currentVersion":"1.0.0","minRequiredVersion":"2.0.0","recommendedVersion":"2.1.0","latestVersion":"2.2.0",
			"updateMessage":"Please update","releaseNotes":null,"downloadUrl":"https://apps.apple.com/app/tandem","deprecationDate":null}`)
		expectPage(t, c.post("/admin/versions/ios", url.Values{"minRequiredVersion": {"3.0.0"}, "recommendedVersion": {"2.0.0"},
			"latestVersion": {"2.2.0"}, "downloadUrl": {"https://apps.apple.com/app/tandem"}, "updateMessage": {"x"}}), 400, "")
		h.Clock.Advance(time.Second)

		// Feedback marked handled leaves the open list.
		r := h.post("/api/users/user/"+ann.ID+"/feedback", ann.Token, map[string]any{"feedbackMessage": "Love it"})
		expect(t, r, 200, "")
		fid := r.JSON(t)["feedbackId"].(string)
		expectPage(t, c.get("/admin/feedback?state=open"), 200, "Love it")
		expectRedirect(t, c.post("/admin/feedback/"+fid+"/handled", url.Values{"state": {"open"}}), "/admin/feedback?state=open")
		h.Clock.Advance(time.Second)
		expect(t, h.get("/api/admin/feedback?state=open", boss.Token), 200, `{"success":true,"feedback":[]}`)
		expect(t, h.get("/api/admin/feedback?state=handled", boss.Token), 200,
			`{"success":true,"feedback":[{"feedbackId":"`+fid+`","feedbackMessage":"Love it","userId":"`+ann.ID+
				`","createdAt":"<string>","timestamp":"<number>"}]}`)
		expectPage(t, c.get("/admin/feedback?state=handled"), 200, "by "+bossEmail)

		// A session revoked: its token is refused at once.
		sid := h.newestSession(t, ann)
		expectPage(t, c.get("/admin/users/"+ann.ID), 200, sid)
		expectRedirect(t, c.post("/admin/users/"+ann.ID+"/sessions/"+sid+"/revoke", nil),
			"/admin/users/"+ann.ID+"?revoked="+url.QueryEscape(sid))
		h.Clock.Advance(time.Second)
		expect(t, h.get("/api/users/user/"+ann.ID, ann.Token), 401, "")

		// An account deleted, after typing its e-mail.
		expectPage(t, c.get("/admin/users/"+ann.ID+"/delete"), 200, "Type the e-mail to confirm")
		expectPage(t, c.post("/admin/users/"+ann.ID+"/delete", url.Values{"confirm": {"someone@example.com"}}), 400, "type the account")
		h.Clock.Advance(time.Second)
		expectRedirect(t, c.post("/admin/users/"+ann.ID+"/delete", url.Values{"confirm": {"ann@example.com"}}),
			"/admin/users?deleted=ann%40example.com")
		h.Clock.Advance(time.Second)
		expect(t, h.post("/api/auth/login/email", "", map[string]any{"email": "ann@example.com", "password": pw}), 401, "")
		expectPage(t, c.get("/admin/users?q=ann@example.com"), 200, "No account matches")
		expectPage(t, c.get("/admin/users/"+ann.ID), 404, "user not found")

		// The audit log has each change, newest first, with who and the
		// states; the refused ones are recorded as failed.
		audit := string(c.get("/admin/audit").Body)
		order := []string{"account.delete", "session.revoke", "feedback.handle", "version_policy.set", "version_policy.set",
			"flag.create", "flag.update", "flag.create"}
		at := 0
		for _, action := range order {
			i := strings.Index(audit[at:], "<code>"+action+"</code>")
			if i < 0 {
				t.Fatalf("audit log lacks %s after offset %d:\n%s", action, at, audit)
			}
			at += i + 1
		}
		for _, want := range []string{bossEmail, "flag:new_home", "platform:ios", "feedback:" + fid, "user:" + ann.ID,
			`&#34;rolloutPercentage&#34;:0`, `class="failed"`, `class="done"`} {
			if !strings.Contains(audit, want) {
				t.Fatalf("audit log lacks %s:\n%s", want, audit)
			}
		}
		expectPage(t, c.get("/admin"), 200, `id="count-users">1<`)
	}, withAdmins(bossEmail))
}

// The console reads a form's fields from the POST body only: c.FormValue
// would take them from the query string first, so a link could carry a
// CSRF token or pre-fill a form.
func TestConsoleReadsFormsFromTheBodyOnly(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		boss := h.newUser(bossEmail)
		c := h.console(t)
		expectPage(t, c.get("/admin/signin"), 200, "Sign in")
		q := url.Values{"csrf": {c.csrf}, "email": {bossEmail}, "password": {pw}}
		r := c.send("POST", "/admin/signin?"+q.Encode(), url.Values{})
		expectPage(t, r, 403, "form has expired")
		if ck := setCookie(r, "tandem_console"); ck != nil {
			t.Fatalf("signed in from the query string: %+v", ck)
		}
		expectRedirect(t, c.get("/admin"), "/admin/signin")

		c.mustSignIn(bossEmail)
		token := c.csrf
		// The session's token in the query string only: refused, nothing runs.
		q = url.Values{"csrf": {token}, "key": {"sneaky"}, "name": {"Sneaky"}, "isEnabled": {"on"}}
		expectPage(t, c.send("POST", "/admin/flags?"+q.Encode(), url.Values{}), 403, "form has expired")
		// The token in the body, the flag's fields in the query string: no flag.
		q.Del("csrf")
		expectPage(t, c.send("POST", "/admin/flags?"+q.Encode(), url.Values{"csrf": {token}}), 400, "key is required")
		expect(t, h.get("/api/feature-flags?action=all", boss.Token), 200, `{"success":true,"flags":[]}`)
	}, withAdmins(bossEmail))
}

// Errors raised before the /admin group's middleware (here the body limit)
// still carry the console's headers.
func TestConsoleHeadersOnErrorsBeforeTheConsole(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		for _, path := range []string{"/admin/signin", "/ADMIN/signin"} {
			c := h.console(t)
			r := c.send("POST", path, url.Values{"email": {strings.Repeat("a", 3<<20)}})
			if r.Status != 413 {
				t.Fatalf("%s: status %d: %s", path, r.Status, r.Body)
			}
			if csp := r.Header.Get("Content-Security-Policy"); csp == "" || r.Header.Get("X-Frame-Options") != "DENY" ||
				r.Header.Get("Cache-Control") != "no-store" {
				t.Fatalf("%s: headers %v", path, r.Header)
			}
		}
	}, withAdmins(bossEmail))
}

// An administrator's account, another's or one's own, is not deleted from
// the console: the grant goes first.
func TestConsoleDoesNotDeleteAnAdministratorsAccount(t *testing.T) {
	eachProfileWith(t, func(t *testing.T, h *harness, acc *accounts.Service) {
		boss := h.newUser(bossEmail)
		ann := h.newUser("ann@example.com")
		if err := acc.SetAdmin(context.Background(), "ann@example.com", true); err != nil {
			t.Fatal(err)
		}
		c := h.console(t)
		c.mustSignIn(bossEmail)
		for email, u := range map[string]user{"ann@example.com": ann, bossEmail: boss} {
			expectPage(t, c.post("/admin/users/"+u.ID+"/delete", url.Values{"confirm": {email}}), 403, "remove the grant first")
			expect(t, h.get("/api/users/user/"+u.ID, u.Token), 200, "")
		}
		onlySessionsAudited(t, c)
	}, withAdmins(bossEmail))
}
