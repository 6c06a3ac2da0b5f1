package tests

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"tandem/adapters/sqlstore"
)

// chromiumPath is Debian's chromium (.ci/run installs it), or TANDEM_CHROMIUM.
func chromiumPath() string {
	if p := os.Getenv("TANDEM_CHROMIUM"); p != "" {
		return p
	}
	return "/usr/bin/chromium"
}

// browser starts a headless Chromium for t, or skips t when there is none
// (a failure under CI, where .ci/run installs it). The flags keep it off
// the network: without them it dials Google's services, which a closed
// network refuses.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := chromiumPath()
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("chromium is required under CI: %v (apt-get install chromium)", err)
		}
		t.Skipf("no chromium at %s: install it (apt-get install chromium) or set TANDEM_CHROMIUM to run the browser tests", path)
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 900),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-default-apps", true), chromedp.Flag("disable-extensions", true))
	ctx, cancelCtx := chromedp.NewContext(alloc)
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	return ctx
}

// screenshots is where the browser tests save a PNG of each page:
// TANDEM_SCREENSHOTS when set (the README's come from there), else a
// temporary folder.
func screenshots(t *testing.T) string {
	if dir := os.Getenv("TANDEM_SCREENSHOTS"); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	return t.TempDir()
}

// shot saves the whole page as dir/name.png.
func shot(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // 100: PNG
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// pageText is the text the page shows.
func pageText(t *testing.T, ctx context.Context) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("body")))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func wantText(t *testing.T, ctx context.Context, want string) {
	t.Helper()
	if got := pageText(t, ctx); !strings.Contains(got, want) {
		t.Fatalf("the page does not show %q:\n%s", want, got)
	}
}

// TestBrowserConsole drives the console in Chromium as an administrator
// does, and checks each change through the public API.
func TestBrowserConsole(t *testing.T) {
	parallel(t)
	ctx := browser(t)
	dir := screenshots(t)
	h := newHarness(t, profile{name: "sqlite", sql: sqlstore.SQLite}, withAdmins(bossEmail))
	boss := h.newUser(bossEmail)
	ann := h.newUser("ann@example.com")
	h.newUser("ben@example.com")
	r := h.post("/api/users/user/"+ann.ID+"/feedback", ann.Token, map[string]any{"feedbackMessage": "The daily question is lovely."})
	expect(t, r, 200, "")
	fid := r.JSON(t)["feedbackId"].(string)
	sid := h.newestSession(t, ann)

	t.Run("sign in", func(t *testing.T) {
		do(t, ctx, "open the console", chromedp.Navigate(h.base+"/admin"), chromedp.WaitVisible(chromedp.ID("signin")))
		shot(t, ctx, dir, "admin-signin")
		do(t, ctx, "sign in", chromedp.SetValue(chromedp.ID("email"), bossEmail), chromedp.SetValue(chromedp.ID("password"), pw),
			chromedp.Click(chromedp.ID("signin")), chromedp.WaitVisible(chromedp.ID("count-users")))
		wantText(t, ctx, "3\nusers")
		wantText(t, ctx, "database (sqlite)")
		shot(t, ctx, dir, "admin-overview")
	})

	t.Run("create a flag", func(t *testing.T) {
		do(t, ctx, "create", chromedp.Navigate(h.base+"/admin/flags"), chromedp.WaitVisible(chromedp.ID("flag-create")),
			chromedp.SetValue(chromedp.ID("flag-key"), "new_home"), chromedp.SetValue(chromedp.ID("flag-name"), "New home screen"),
			chromedp.SetValue(chromedp.ID("flag-rollout"), "40"), chromedp.Click(chromedp.ID("flag-enabled")),
			chromedp.Click(chromedp.ID("flag-create")), chromedp.WaitVisible(chromedp.ID("preview")))
		wantText(t, ctx, "sample users")
		shot(t, ctx, dir, "admin-flag")
		all := h.get("/api/feature-flags?action=all", boss.Token)
		expect(t, all, 200, "")
		if !strings.Contains(string(all.Body), `"key":"new_home"`) || !strings.Contains(string(all.Body), `"rolloutPercentage":40`) {
			t.Fatalf("the API does not show the flag: %s", all.Body)
		}
		do(t, ctx, "list", chromedp.Navigate(h.base+"/admin/flags"), chromedp.WaitVisible(chromedp.ID("flags")))
		wantText(t, ctx, "new_home")
		shot(t, ctx, dir, "admin-flags")
	})

	t.Run("change a version policy", func(t *testing.T) {
		form := "#policy-android "
		do(t, ctx, "save", chromedp.Navigate(h.base+"/admin/versions"), chromedp.WaitVisible(chromedp.ID("save-android")),
			chromedp.SetValue(chromedp.CSS(form+`input[name="minRequiredVersion"]`), "2.0.0"),
			chromedp.SetValue(chromedp.CSS(form+`input[name="recommendedVersion"]`), "2.1.0"),
			chromedp.SetValue(chromedp.CSS(form+`input[name="latestVersion"]`), "2.2.0"),
			chromedp.SetValue(chromedp.CSS(form+`input[name="downloadUrl"]`), "https://play.google.com/store/apps/details?id=app.tandem"),
			chromedp.SetValue(chromedp.CSS(form+`input[name="updateMessage"]`), "A new version is out"),
			chromedp.Click(chromedp.ID("save-android")), chromedp.WaitVisible(chromedp.ID("saved")))
		shot(t, ctx, dir, "admin-versions")
		v := h.get("/api/version-check?platform=android&version=1.5.0", "")
		if v.Status != 200 || !strings.Contains(string(v.Body), `"updateRequired":true`) {
			t.Fatalf("version check: %d %s", v.Status, v.Body)
		}
	})

	t.Run("mark feedback handled", func(t *testing.T) {
		do(t, ctx, "mark", chromedp.Navigate(h.base+"/admin/feedback?state=open"), chromedp.WaitVisible(chromedp.ID("feedback-"+fid)),
			chromedp.Click(chromedp.CSS("#feedback-"+fid+" button.handle")),
			chromedp.WaitNotPresent(chromedp.ID("feedback-"+fid))) // the open list, reloaded, no longer has it
		do(t, ctx, "handled list", chromedp.Navigate(h.base+"/admin/feedback?state=handled"), chromedp.WaitVisible(chromedp.ID("feedback-"+fid)))
		wantText(t, ctx, "by "+bossEmail)
		shot(t, ctx, dir, "admin-feedback")
		expect(t, h.get("/api/admin/feedback?state=open", boss.Token), 200, `{"success":true,"feedback":[]}`)
		if got := h.get("/api/admin/feedback?state=handled", boss.Token); !strings.Contains(string(got.Body), fid) {
			t.Fatalf("handled list: %s", got.Body)
		}
	})

	t.Run("revoke a session", func(t *testing.T) {
		do(t, ctx, "find", chromedp.Navigate(h.base+"/admin/users"), chromedp.WaitVisible(chromedp.ID("find-q")),
			chromedp.SetValue(chromedp.ID("find-q"), "an"), chromedp.Click(chromedp.ID("find")),
			chromedp.WaitVisible(chromedp.ID("users")))
		wantText(t, ctx, "ann@example.com")
		do(t, ctx, "open the user", chromedp.Click(chromedp.CSS(`#users a[href="/admin/users/`+ann.ID+`"]`)),
			chromedp.WaitVisible(chromedp.ID("sessions")))
		wantText(t, ctx, sid)
		shot(t, ctx, dir, "admin-users")
		expect(t, h.get("/api/users/user/"+ann.ID, ann.Token), 200, "")
		do(t, ctx, "revoke", chromedp.Click(chromedp.CSS(`form[action$="/sessions/`+sid+`/revoke"] button`)),
			chromedp.WaitVisible(chromedp.ID("revoked")))
		expect(t, h.get("/api/users/user/"+ann.ID, ann.Token), 401, "")
	})

	t.Run("the audit log shows every change", func(t *testing.T) {
		do(t, ctx, "audit", chromedp.Navigate(h.base+"/admin/audit"), chromedp.WaitVisible(chromedp.ID("audit")))
		for _, action := range []string{"flag.create", "version_policy.set", "feedback.handle", "session.revoke"} {
			wantText(t, ctx, action)
		}
		shot(t, ctx, dir, "admin-audit")
	})

	t.Run("a non-administrator is refused", func(t *testing.T) {
		other, cancel := chromedp.NewContext(ctx) // a new tab shares the cookies: sign out first
		defer cancel()
		do(t, other, "sign out", chromedp.Navigate(h.base+"/admin"), chromedp.WaitVisible(chromedp.CSS(".signout button")),
			chromedp.Click(chromedp.CSS(".signout button")), chromedp.WaitVisible(chromedp.ID("signin")))
		do(t, other, "sign in as ben", chromedp.SetValue(chromedp.ID("email"), "ben@example.com"), chromedp.SetValue(chromedp.ID("password"), pw),
			chromedp.Click(chromedp.ID("signin")), chromedp.WaitVisible(chromedp.ID("error")))
		wantText(t, other, "administrators only")
		shot(t, other, dir, "admin-refused")
		do(t, other, "try the overview", chromedp.Navigate(h.base+"/admin"), chromedp.WaitVisible(chromedp.ID("signin")))
	})
	t.Logf("screenshots in %s", dir)
}

// TestBrowserDocsListTheOperations opens /docs (the API reference page,
// which loads /openapi.json) and waits for known operations to show.
func TestBrowserDocsListTheOperations(t *testing.T) {
	parallel(t)
	ctx := browser(t)
	dir := screenshots(t)
	h := newHarness(t, profile{name: "sqlite", sql: sqlstore.SQLite})
	if r := h.get("/docs", ""); r.Status != 200 {
		t.Fatalf("GET /docs: %d (the docs page is not served on this build)", r.Status)
	}
	do(t, ctx, "open the docs", chromedp.Navigate(h.base+"/docs"))
	for _, want := range []string{"/api/users/user/{userId}/home", "/api/auth/login/email", "/api/feature-flags"} {
		expr := "document.body && document.body.innerText.includes(" + jsonStr(want) + ")"
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(30*time.Second))); err != nil {
			t.Fatalf("/docs does not list %s: %v", want, err)
		}
	}
	shot(t, ctx, dir, "docs")
}
