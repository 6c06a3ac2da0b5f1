package tests

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.uber.org/fx"

	"tandem/core"
	"tandem/modules/accounts"
	"tandem/modules/admin"
)

// auditEntries is the audit log oldest first, with times and ids left out.
func auditEntries(t *testing.T, svc *admin.Service) []admin.Entry {
	t.Helper()
	es, _, err := svc.Audit(context.Background(), core.Page{Limit: 500})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]admin.Entry, len(es))
	for i, e := range es {
		e.ID, e.At = "", time.Time{}
		out[len(es)-1-i] = e
	}
	return out
}

// Changes made through the API land in the console's audit log, as the
// console's own do: who, what, before and after, failed attempts included.
func TestAuditRecordsAPIChanges(t *testing.T) {
	eachProfileWith(t, func(t *testing.T, h *harness, svc *admin.Service) {
		boss := h.newUser("boss@x.io")
		step := func(r response, status int) {
			t.Helper()
			expect(t, r, status, "")
			h.Clock.Advance(time.Second) // the audit log orders by time
		}
		step(h.flagWrite(boss, map[string]any{"action": "create", "key": "dark_mode", "name": "Dark mode"}), 200)
		step(h.flagWrite(boss, map[string]any{"action": "toggle", "flagKey": "dark_mode", "isEnabled": false}), 200)
		step(h.flagWrite(boss, map[string]any{"action": "update", "flagKey": "dark_mode", "rolloutPercentage": 25}), 200)
		step(h.flagWrite(boss, map[string]any{"action": "toggle", "flagKey": "nope", "isEnabled": true}), 404)
		step(h.flagWrite(boss, map[string]any{"action": "delete", "flagKey": "dark_mode"}), 200)
		step(h.do(req{Method: "PUT", Path: policyPath + "ios", Token: boss.Token, Body: map[string]any{
			"minRequiredVersion": "1.0.0", "recommendedVersion": "1.1.0", "latestVersion": "1.2.0",
			"downloadUrl": "https://apps.apple.com/app/id1", "updateMessage": "Update"}}), 200)

		es := auditEntries(t, svc)
		want := []struct {
			action, target string
			outcome        admin.Outcome
			before, after  string // substrings; "null" exactly
		}{
			{"flag.create", "flag:dark_mode", admin.OutcomeDone, "null", `"key":"dark_mode","name":"Dark mode","description":"","isEnabled":false`},
			{"flag.toggle", "flag:dark_mode", admin.OutcomeDone, `"isEnabled":false`, `"isEnabled":false`},
			{"flag.update", "flag:dark_mode", admin.OutcomeDone, `"rolloutPercentage":100`, `"rolloutPercentage":25`},
			{"flag.toggle", "flag:nope", admin.OutcomeFailed, "null", "null"},
			{"flag.delete", "flag:dark_mode", admin.OutcomeDone, `"rolloutPercentage":25`, "null"},
			{"version_policy.set", "platform:ios", admin.OutcomeDone, "null", `"minRequiredVersion":"1.0.0"`},
		}
		if len(es) != len(want) {
			t.Fatalf("%d entries, want %d: %+v", len(es), len(want), es)
		}
		match := func(got, want string) bool {
			if want == "null" {
				return got == "null"
			}
			return strings.Contains(got, want)
		}
		for i, w := range want {
			e := es[i]
			if e.Action != w.action || e.Target != w.target || e.Outcome != w.outcome || e.ActorID != boss.ID ||
				e.Actor != "boss@x.io" || !match(e.Before, w.before) || !match(e.After, w.after) {
				t.Errorf("entry %d: %+v, want %+v", i, e, w)
			}
		}
	}, asAdmin)
}

// A write refused before it runs leaves no entry: a caller who is no
// administrator (403), one with no token (401), a policy for a platform that
// does not exist (400 from the read that comes before the entry).
func TestAuditRecordsNoRefusedAPIWrite(t *testing.T) {
	eachProfileWith(t, func(t *testing.T, h *harness, svc *admin.Service) {
		ann := h.newUser("ann@x.io")
		boss := h.newUser("boss@x.io")
		policy := map[string]any{"minRequiredVersion": "1.0.0", "recommendedVersion": "1.1.0", "latestVersion": "1.2.0",
			"downloadUrl": "https://apps.apple.com/app/id1", "updateMessage": "Update"}
		expect(t, h.flagWrite(ann, map[string]any{"action": "create", "key": "sneaky", "name": "Sneaky"}), 403, "")
		expect(t, h.flagWrite(ann, map[string]any{"action": "toggle", "flagKey": "sneaky", "isEnabled": true}), 403, "")
		expect(t, h.flagWrite(user{}, map[string]any{"action": "delete", "flagKey": "sneaky"}), 401, "")
		expect(t, h.do(req{Method: "PUT", Path: policyPath + "ios", Token: ann.Token, Body: policy}), 403, "")
		expect(t, h.do(req{Method: "PUT", Path: policyPath + "palm", Token: boss.Token, Body: policy}), 400, "")
		if es := auditEntries(t, svc); len(es) != 0 {
			t.Fatalf("refused writes on record: %+v", es)
		}
	}, asAdmin)
}

// A refused console sign-in is on record: the e-mail as typed, the
// client's address and the reason, never the password; the audit page
// shows it as any other entry.
func TestAuditRecordsRefusedConsoleSignIns(t *testing.T) {
	parallel(t)
	const password = "Zebra-Wrong-Password-42" // must appear nowhere in the log
	eachProfileWith(t, func(t *testing.T, h *harness, svc *admin.Service) {
		h.newUser(bossEmail)
		h.newUser("ann@example.com")
		c := h.console(t)
		signIn := func(email, password string) response {
			t.Helper()
			r := c.signIn(email, password)
			h.Clock.Advance(time.Second) // the audit log orders by time
			return r
		}
		expectPage(t, signIn(" Boss@Example.COM ", password), 401, "invalid e-mail or password")
		expectPage(t, signIn("ann@example.com", pw), 403, "administrators only")
		long := strings.Repeat("x", 300) + "@example.com"
		expectPage(t, signIn(long, password), 401, "invalid e-mail or password")
		// Wrong passwords until the account's attempts run out.
		var last response
		for range 30 {
			if last = signIn(bossEmail, password); last.Status != 401 {
				break
			}
		}
		expectPage(t, last, 429, "")

		es := auditEntries(t, svc)
		ip := `{"ip":"127.0.0.1","reason":`
		want := []admin.Entry{
			{Target: "email: Boss@Example.COM ", After: ip + `"wrong_credentials"}`},
			{Target: "email:ann@example.com", After: ip + `"not_administrator"}`},
			{Target: ("email:" + long)[:admin.MaxField], After: ip + `"wrong_credentials"}`},
		}
		for range len(es) - len(want) - 1 {
			want = append(want, admin.Entry{Target: "email:" + bossEmail, After: ip + `"wrong_credentials"}`})
		}
		want = append(want, admin.Entry{Target: "email:" + bossEmail, After: ip + `"rate_limited"}`})
		if len(es) != len(want) || len(es) < 5 {
			t.Fatalf("%d entries, want %d: %+v", len(es), len(want), es)
		}
		for i, w := range want {
			w.Actor, w.Action, w.Before, w.Outcome = admin.Anonymous, "console.signin_failed", "null", admin.OutcomeFailed
			if es[i] != w {
				t.Errorf("entry %d: %+v, want %+v", i, es[i], w)
			}
			if strings.Contains(fmt.Sprintf("%+v", es[i]), password) {
				t.Errorf("entry %d holds the password: %+v", i, es[i])
			}
		}

		// Shown on the audit page like any entry, still without the password.
		boss := h.console(t)
		h.Clock.Advance(time.Hour) // the attempts on bossEmail have run out
		boss.mustSignIn(bossEmail)
		page := boss.get("/admin/audit")
		expectPage(t, page, 200, "<code>console.signin_failed</code>")
		for _, s := range []string{"<code>email: Boss@Example.COM </code>", "<td>anonymous</td>", `&#34;reason&#34;:&#34;not_administrator&#34;`,
			`class="failed"`} {
			if !strings.Contains(string(page.Body), s) {
				t.Fatalf("the audit page lacks %s:\n%s", s, page.Body)
			}
		}
		if strings.Contains(string(page.Body), password) {
			t.Fatal("the audit page shows the password")
		}
	}, withAdmins(bossEmail))
}

// busyHasher hashes, but every password check is shed as the bounded
// hasher sheds one when no slot frees in time.
type busyHasher struct{ accounts.PasswordHasher }

func (busyHasher) Verify(string, string) (bool, error) {
	e := core.Unavailable("busy", "tests.tooManyPasswordChecksOnce", "too many password checks at once; try again in a moment")
	e.RetryAfter = time.Second
	return false, e
}

// A console sign-in shed because hashing is busy is the sign-in page with
// 503 and Retry-After, not the API's JSON, and no refusal on record: no
// password was checked.
func TestConsoleSignInWhileHashingIsBusy(t *testing.T) {
	eachProfileWith(t, func(t *testing.T, h *harness, svc *admin.Service) {
		h.newUser(bossEmail)
		r := h.console(t).signIn(bossEmail, pw)
		expectPage(t, r, 503, "too many password checks at once")
		if r.Header.Get("Retry-After") != "1" || setCookie(r, "tandem_console") != nil {
			t.Fatalf("503 without Retry-After or with a session: %v", r.Header)
		}
		if es := auditEntries(t, svc); len(es) != 0 {
			t.Fatalf("a shed sign-in is on record: %+v", es)
		}
	}, withAdmins(bossEmail), withFx(fx.Decorate(func(h accounts.PasswordHasher) accounts.PasswordHasher { return busyHasher{h} })))
}
