package tests

import (
	"context"
	"strings"
	"testing"
	"time"

	"tandem/core"
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
