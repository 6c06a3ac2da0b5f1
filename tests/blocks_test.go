package tests

import (
	"net/url"
	"strings"
	"testing"
	"time"
)

// A blocked account, attacked as its owner or as whoever holds one of its
// tokens: every token it had is dead on every route (401) and its live
// stream ends; every way in refuses it with 403 account_blocked (a
// password login, Google and Apple, a passkey, a reset, the console), but
// a wrong password still says only that; the block is on the console's
// audit log. Unblocked, it signs in again by every way.
func TestABlockedAccountIsShutOutEverywhereUntilUnblocked(t *testing.T) {
	p, signin := newIDProviders(t)
	eachProfile(t, func(t *testing.T, h *harness) {
		h.newUser(bossEmail)
		ann := h.newUser("ann@x.io")
		bob := h.newUser("bob@x.io")
		_, other := h.login("ann@x.io")
		// Each sign-in is another ID token (a token signs in once): issued a second later.
		google := func() response {
			h.Clock.Advance(time.Second)
			return h.signInWith("google", p.google.Sign(t, h.googleClaims(p, "google-ann", "ann@x.io", true)), nil)
		}
		apple := func() response {
			h.Clock.Advance(time.Second)
			return h.signInWith("apple", p.apple.Sign(t, h.appleClaims(p, "apple-ann", "ann@x.io")), nil)
		}
		expect(t, google(), 200, signInOK(false)) // linked before the block
		expect(t, apple(), 200, signInOK(false))
		k := newSoftKey(t)
		h.registerPasskey(t, ann, k)
		passkey := func() response { return h.post("/api/auth/passkeys/signin/verify", "", k.get(h.signInOptions(t))) }
		login := func(password string) response {
			return h.post("/api/auth/login/email", "", map[string]any{"email": "ann@x.io", "password": password})
		}
		stream := h.openStream(ann, "")

		c := h.console(t)
		c.mustSignIn(bossEmail)
		expectPage(t, c.get("/admin/users/"+ann.ID), 200, `id="action-block"`)
		expectRedirect(t, c.post("/admin/users/"+ann.ID+"/block", nil), "/admin/users/"+ann.ID+"?done=block")
		expectPage(t, c.get("/admin/users/"+ann.ID+"?done=block"), 200, "Account blocked")

		stream.ends(time.Second, "revoked")
		invalid := errBody("unauthorized", "missing, invalid or expired token")
		mine := map[string]string{"eventId": "e", "memoryId": "m", "imageId": "i", "groupId": "g", "sessionId": "s",
			"deviceId": "d", "platform": "ios", "passkeyId": "p", "provider": "google", "date": "2025-06-15"}
		for _, tok := range []string{ann.Token, other} {
			for _, r := range documentedRoutes(t) {
				if publicRoute(r) {
					continue
				}
				q := req{Method: r.method, Path: fillPath(r.path, ann.ID, mine), Token: tok}
				if r.method != "GET" && r.method != "DELETE" {
					q.Body = map[string]any{}
				}
				if strings.HasPrefix(r.path, "/api/messages/") || strings.HasPrefix(r.path, "/api/partnerConnections/") {
					q = q.withKey()
				}
				if got := h.do(q); got.Status != 401 {
					t.Fatalf("%s %s with a blocked account's token: %d %s", r.method, r.path, got.Status, got.Body)
				} else {
					expect(t, got, 401, invalid)
				}
			}
		}

		blocked := errBody("account_blocked", "this account is blocked: contact support")
		expect(t, login(pw), 403, blocked)
		expect(t, login("not-the-password"), 401, errBody("invalid_credentials", "invalid e-mail or password"))
		expect(t, google(), 403, blocked)
		expect(t, apple(), 403, blocked)
		expect(t, passkey(), 403, blocked)
		expect(t, h.post("/api/auth/reset", "", map[string]any{"email": "ann@x.io"}), 200, "")
		v := h.post("/api/auth/reset", "", map[string]any{"userId": ann.ID, "code": h.Mail.Code("ann@x.io")})
		expect(t, v, 200, "")
		expect(t, h.post("/api/auth/reset", "", map[string]any{"userId": ann.ID, "newPassword": "brand-new-pass",
			"resetToken": v.JSON(t)["resetToken"]}), 403, blocked)
		expect(t, h.get(sessionsPath(bob), bob.Token), 200, "") // nobody else is touched

		audit := c.get("/admin/audit")
		expectPage(t, audit, 200, "<code>account.block</code>")

		expectRedirect(t, c.post("/admin/users/"+ann.ID+"/unblock", nil), "/admin/users/"+ann.ID+"?done=unblock")
		r := login(pw)
		expect(t, r, 200, "")
		expect(t, h.get("/api/users/user/"+ann.ID, r.JSON(t)["token"].(string)), 200, "")
		expect(t, google(), 200, signInOK(false))
		expect(t, apple(), 200, signInOK(false))
		expect(t, passkey(), 200, "")
		expectPage(t, c.get("/admin/audit"), 200, "<code>account.unblock</code>")
	}, signin, withPasskeys(), withAdmins(bossEmail))
}

// The console's refusals on a user's page: one's own account is not
// blocked nor one's own grant revoked, an administrator by
// TANDEM_ADMIN_EMAILS is not revoked (and the page says why); each is
// shown on the user's page with its status, and nothing is recorded.
func TestConsoleUserActionRefusals(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		boss := h.newUser(bossEmail)
		other := h.newUser("second@example.com")
		c := h.console(t)
		c.mustSignIn(bossEmail)
		page := c.get("/admin/users/" + boss.ID)
		expectPage(t, page, 200, "by TANDEM_ADMIN_EMAILS")
		if strings.Contains(string(page.Body), `id="action-block"`) || strings.Contains(string(page.Body), `id="action-revoke"`) {
			t.Fatalf("one's own page offers a block or a revocation: %s", page.Body)
		}
		expectPage(t, c.post("/admin/users/"+boss.ID+"/block", nil), 403, "you cannot block your own account")
		expectPage(t, c.post("/admin/users/"+boss.ID+"/revoke", nil), 403, "you cannot revoke your own administrator grant")

		// A second administrator by the setting cannot revoke the first.
		c2 := h.console(t)
		expectRedirect(t, c.post("/admin/users/"+other.ID+"/grant", nil), "/admin/users/"+other.ID+"?done=grant")
		c2.mustSignIn("second@example.com")
		expectPage(t, c2.get("/admin/users/"+boss.ID), 200, `id="action-revoke"`)
		expectPage(t, c2.post("/admin/users/"+boss.ID+"/revoke", nil), 403,
			escaped(bossEmail+" is an administrator by TANDEM_ADMIN_EMAILS: remove the address from that setting, the console cannot revoke it"))
		expectPage(t, c2.post("/admin/users/"+boss.ID+"/block", nil), 403, escaped("an administrator's account is not blocked from the console"))
		expectPage(t, c2.post("/admin/users/"+other.ID+"/verify", nil), 409, "the e-mail is already verified")
		// A form without the session's token changes nothing.
		expect(t, c2.postRaw("/admin/users/"+boss.ID+"/revoke", url.Values{"csrf": {"forged"}}), 403, "")

		audit := string(c.get("/admin/audit").Body)
		if strings.Count(audit, "<code>admin.grant</code>") != 1 || strings.Contains(audit, "admin.revoke") ||
			strings.Contains(audit, "account.block") {
			t.Fatalf("the audit log: %s", audit)
		}
	}, withAdmins(bossEmail))
}

// escaped is text as the console's templates escape it.
func escaped(s string) string { return strings.ReplaceAll(s, "'", "&#39;") }
