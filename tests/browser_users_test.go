package tests

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"tandem/adapters/sqlstore"
)

// TestBrowserConsoleUserActions drives every action of a user's page, the
// flag deletion and the Backups and Settings pages in Chromium, and checks
// each change's confirmation, its stored effect (through the public API)
// and its audit log entry.
func TestBrowserConsoleUserActions(t *testing.T) {
	parallel(t)
	ctx := browser(t)
	dir := screenshots(t)
	h := newHarness(t, profile{name: "sqlite", sql: sqlstore.SQLite}, withAdmins(bossEmail),
		withEnv("TANDEM_CONSOLE_SECRET", "a-console-secret-that-is-long-enough-0123456789"))
	boss := h.newUser(bossEmail)
	ann := h.newUser("ann@example.com")
	r := h.post("/api/auth/signup/email", "", map[string]any{"email": "kim@example.com", "password": pw})
	expect(t, r, 200, "")
	kim := r.JSON(t)["userId"].(string)
	userPage := func(id string) string { return h.base + "/admin/users/" + id }
	act := func(what, id, action string) {
		t.Helper()
		do(t, ctx, what, chromedp.Navigate(userPage(id)), chromedp.WaitVisible(chromedp.ID("action-"+action)),
			chromedp.Click(chromedp.ID("action-"+action)), chromedp.WaitVisible(chromedp.ID("done")))
	}

	do(t, ctx, "sign in", chromedp.Navigate(h.base+"/admin"), chromedp.WaitVisible(chromedp.ID("signin")),
		chromedp.SetValue(chromedp.ID("email"), bossEmail), chromedp.SetValue(chromedp.ID("password"), pw),
		chromedp.Click(chromedp.ID("signin")), chromedp.WaitVisible(chromedp.ID("count-users")))

	t.Run("the users page lists every user, newest first, without a search", func(t *testing.T) {
		do(t, ctx, "list", chromedp.Navigate(h.base+"/admin/users"), chromedp.WaitVisible(chromedp.ID("users")))
		text, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("users")))
		if err != nil {
			t.Fatal(err)
		}
		k, a, b := strings.Index(text, "kim@example.com"), strings.Index(text, "ann@example.com"), strings.Index(text, bossEmail)
		if k < 0 || a < 0 || b < 0 || !(k < a && a < b) {
			t.Fatalf("not every user, newest first:\n%s", text)
		}
		shot(t, ctx, dir, "admin-users-list")
	})

	t.Run("verify an e-mail", func(t *testing.T) {
		act("verify", kim, "verify")
		wantText(t, ctx, "E-mail verified")
		if v, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("verified"))); err != nil || v != "yes" {
			t.Fatalf("verified: %q %v", v, err)
		}
		expect(t, h.post("/api/auth/login/email", "", map[string]any{"email": "kim@example.com", "password": pw}), 200, "")
	})

	t.Run("end every session", func(t *testing.T) {
		act("end sessions", ann.ID, "end-sessions")
		wantText(t, ctx, "Every session ended")
		expect(t, h.get("/api/users/user/"+ann.ID, ann.Token), 401, "")
		ann.Token = h.loginToken(t, "ann@example.com")
	})

	t.Run("mail a password reset", func(t *testing.T) {
		act("reset", ann.ID, "reset")
		wantText(t, ctx, "reset code was mailed")
		code := h.Mail.Code("ann@example.com")
		expect(t, h.post("/api/auth/reset", "", map[string]any{"userId": ann.ID, "code": code}), 200, "")
	})

	t.Run("block and unblock", func(t *testing.T) {
		act("block", ann.ID, "block")
		wantText(t, ctx, "Account blocked")
		shot(t, ctx, dir, "admin-user-blocked")
		expect(t, h.get("/api/users/user/"+ann.ID, ann.Token), 401, "")
		expect(t, h.post("/api/auth/login/email", "", map[string]any{"email": "ann@example.com", "password": pw}), 403,
			errBody("account_blocked", "this account is blocked: contact support"))
		act("unblock", ann.ID, "unblock")
		wantText(t, ctx, "Account unblocked")
		ann.Token = h.loginToken(t, "ann@example.com")
	})

	t.Run("grant and revoke administrator", func(t *testing.T) {
		act("grant", ann.ID, "grant")
		wantText(t, ctx, "Administrator role granted")
		expect(t, h.get("/api/admin/feedback?state=open", h.loginToken(t, "ann@example.com")), 200, "")
		act("revoke", ann.ID, "revoke")
		wantText(t, ctx, "Administrator role revoked")
		expect(t, h.get("/api/admin/feedback?state=open", h.loginToken(t, "ann@example.com")), 403, "")
	})

	t.Run("one's own page refuses what it must", func(t *testing.T) {
		do(t, ctx, "own page", chromedp.Navigate(userPage(boss.ID)), chromedp.WaitVisible(chromedp.ID("configured")))
		wantText(t, ctx, "only that setting gives and takes the role")
		shot(t, ctx, dir, "admin-user-self")
	})

	t.Run("delete a flag", func(t *testing.T) {
		do(t, ctx, "create", chromedp.Navigate(h.base+"/admin/flags"), chromedp.WaitVisible(chromedp.ID("flag-create")),
			chromedp.SetValue(chromedp.ID("flag-key"), "old_home"), chromedp.SetValue(chromedp.ID("flag-name"), "Old home"),
			chromedp.Click(chromedp.ID("flag-create")), chromedp.WaitVisible(chromedp.ID("flag-delete")))
		if all := h.get("/api/feature-flags?action=all", boss.Token); !strings.Contains(string(all.Body), "old_home") {
			t.Fatalf("no flag to delete: %s", all.Body)
		}
		do(t, ctx, "delete",
			chromedp.Click(chromedp.ID("flag-delete")), chromedp.WaitVisible(chromedp.ID("deleted")))
		wantText(t, ctx, "Flag old_home deleted.")
		if all := h.get("/api/feature-flags?action=all", boss.Token); strings.Contains(string(all.Body), "old_home") {
			t.Fatalf("the flag is still there: %s", all.Body)
		}
	})

	t.Run("backups and settings", func(t *testing.T) {
		do(t, ctx, "backups", chromedp.Navigate(h.base+"/admin/backups"), chromedp.WaitVisible(chromedp.ID("backups")))
		wantText(t, ctx, "tandem backup")
		wantText(t, ctx, "sqlite")
		shot(t, ctx, dir, "admin-backups")
		do(t, ctx, "settings", chromedp.Navigate(h.base+"/admin/settings"), chromedp.WaitVisible(chromedp.ID("settings")))
		wantText(t, ctx, "TANDEM_CONSOLE_SECRET")
		if got := pageText(t, ctx); strings.Contains(got, "a-console-secret-that-is-long-enough") || !strings.Contains(got, "***") {
			t.Fatalf("the settings page shows a secret, or masks none:\n%s", got)
		}
		shot(t, ctx, dir, "admin-settings")
	})

	t.Run("the audit log shows every action", func(t *testing.T) {
		do(t, ctx, "audit", chromedp.Navigate(h.base+"/admin/audit"), chromedp.WaitVisible(chromedp.ID("audit")))
		for _, action := range []string{"account.verify", "session.revoke_all", "password.reset_start", "account.block",
			"account.unblock", "admin.grant", "admin.revoke", "flag.delete"} {
			wantText(t, ctx, action)
		}
		shot(t, ctx, dir, "admin-audit-users")
	})
}

// loginToken logs in with the tests' password and returns the new token.
func (h *harness) loginToken(t *testing.T, email string) string {
	t.Helper()
	r := h.post("/api/auth/login/email", "", map[string]any{"email": email, "password": pw})
	expect(t, r, 200, "")
	return r.JSON(t)["token"].(string)
}
