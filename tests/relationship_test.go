package tests

import (
	"testing"
	"time"
)

func relationshipPath(u user) string { return "/api/user/" + u.ID + "/relationship" }

// duration is the exact duration object; end "" while active.
func duration(days int, start, end string) string {
	endJSON, active := "null", "true"
	if end != "" {
		endJSON, active = `"`+end+`T00:00:00Z"`, "false"
	}
	return `{"days":` + itoa(int64(days)) + `,"startDate":"` + start + `T00:00:00Z","endDate":` + endJSON + `,"isActive":` + active + `}`
}

// withSuccess is the POST reply: success and the duration object.
func withSuccess(d string) string { return `{"success":true,` + d[1:] }

func TestRelationshipStartReadEnd(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) { // the clock stands at 2025-06-15 12:00 UTC
		a, b := h.newUser("a@x.io"), h.newUser("b@x.io")
		h.pair(a, b)
		expect(t, h.get(relationshipPath(a), a.Token), 404, errBody("not_found", "no relationship"))

		expect(t, h.post(relationshipPath(a), a.Token, map[string]any{"action": "start", "date": "2024-02-14"}), 200,
			withSuccess(duration(487, "2024-02-14", "")))
		expect(t, h.get(relationshipPath(a), a.Token), 200, duration(487, "2024-02-14", ""))
		expect(t, h.get(relationshipPath(b), b.Token), 200, duration(487, "2024-02-14", ""))
		for _, u := range []user{a, b} {
			expect(t, h.post(relationshipPath(u), u.Token, map[string]any{"action": "start", "date": "2025-01-01"}), 409,
				errBody("conflict", "a relationship is already active; end it first"))
		}

		// one instant, two todays: it is already June 16 in Kiritimati
		expect(t, h.do(req{Method: "PATCH", Path: "/api/users/user/" + b.ID, Token: b.Token,
			Body: map[string]any{"timezone": "Pacific/Kiritimati"}}), 200, "")
		expect(t, h.get(relationshipPath(b), b.Token), 200, duration(488, "2024-02-14", ""))
		expect(t, h.get(relationshipPath(a), a.Token), 200, duration(487, "2024-02-14", ""))
		h.Clock.Advance(24 * time.Hour)
		expect(t, h.get(relationshipPath(a), a.Token), 200, duration(488, "2024-02-14", ""))

		// either partner ends it; the count stops at the end date
		expect(t, h.post(relationshipPath(b), b.Token, map[string]any{"action": "end", "date": "2025-02-14"}), 200,
			withSuccess(duration(366, "2024-02-14", "2025-02-14")))
		h.Clock.Advance(60 * 24 * time.Hour) // tokens live 90 days
		expect(t, h.get(relationshipPath(a), a.Token), 200, duration(366, "2024-02-14", "2025-02-14"))
		expect(t, h.post(relationshipPath(a), a.Token, map[string]any{"action": "end"}), 404, errBody("not_found", "no active relationship"))

		// a new one may start; ending without a date ends it on the caller's today
		expect(t, h.post(relationshipPath(a), a.Token, map[string]any{"action": "start", "date": "2025-08-01"}), 200,
			withSuccess(duration(14, "2025-08-01", "")))
		expect(t, h.post(relationshipPath(a), a.Token, map[string]any{"action": "end"}), 200,
			withSuccess(duration(14, "2025-08-01", "2025-08-15")))
		expect(t, h.get(relationshipPath(b), b.Token), 200, duration(14, "2025-08-01", "2025-08-15"))

		data := h.get("/api/users/user/"+a.ID+"/export", a.Token).JSON(t)["data"].(map[string]any)
		if rs, ok := data["relationship"].([]any); !ok || len(rs) != 2 {
			t.Fatalf("export: %v", data["relationship"])
		}
	})
}

func TestRelationshipErrors(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) { // today is 2025-06-15 (UTC)
		a, b, single := h.newUser("a@x.io"), h.newUser("b@x.io"), h.newUser("c@x.io")
		h.pair(a, b)
		expect(t, h.post(relationshipPath(b), b.Token, map[string]any{"action": "start", "date": "2025-01-10"}), 200, "")
		notPaired := errBody("not_paired", "you need a partner for this")
		post := func(u user, body any) req { return POST(relationshipPath(u), body).by(u) }
		unchanged := func(t *testing.T, h *harness) {
			expect(t, h.get(relationshipPath(b), b.Token), 200, duration(156, "2025-01-10", ""))
		}
		runScenarios(t, h, afterEach(unchanged, []scenario{
			{name: "unpaired GET", req: GET(relationshipPath(single)).by(single), status: 409, want: notPaired},
			{name: "unpaired start", req: post(single, map[string]any{"action": "start", "date": "2025-01-01"}), status: 409, want: notPaired},
			{name: "unpaired end", req: post(single, map[string]any{"action": "end"}), status: 409, want: notPaired},
			{name: "missing date", req: post(single, map[string]any{"action": "start"}), status: 400, want: errInvalid("date is required (YYYY-MM-DD)")},
			{name: "bad format", req: post(a, map[string]any{"action": "start", "date": "14/02/2024"}), status: 400,
				want: errBody("invalid_date", `\"14/02/2024\" is not a date in the form YYYY-MM-DD`)},
			{name: "impossible date", req: post(a, map[string]any{"action": "end", "date": "2025-02-30"}), status: 400,
				want: errBody("invalid_date", `\"2025-02-30\" is not a date in the form YYYY-MM-DD`)},
			{name: "future start", req: post(single, map[string]any{"action": "start", "date": "2025-06-16"}), status: 409, want: notPaired},
			{name: "future end", req: post(a, map[string]any{"action": "end", "date": "2025-06-16"}), status: 400,
				want: errBody("invalid_date", "date must not be in the future")},
			{name: "end before the start", req: post(a, map[string]any{"action": "end", "date": "2025-01-09"}), status: 400,
				want: errBody("invalid_date", "the end date must not be before the start date 2025-01-10")},
			{name: "date not a string", req: post(a, map[string]any{"action": "end", "date": 20250101}), status: 400,
				want: errInvalid("field date must be a string")},
			{name: "missing action", req: post(a, map[string]any{"date": "2025-01-01"}), status: 400, want: errInvalid("action is required: start, end")},
			{name: "unknown action", req: post(a, map[string]any{"action": "pause"}), status: 400, want: errInvalid(`unknown action \"pause\": use start, end`)},
			{name: "someone else's path", req: GET(relationshipPath(b)).by(a), status: 403, want: errNotYours},
			{name: "no token", req: GET(relationshipPath(a)), status: 401, want: errNoToken},
		}))
		// nothing changed; and a future start is refused for the paired too
		expect(t, h.post(relationshipPath(a), a.Token, map[string]any{"action": "end", "date": "2025-06-15"}), 200, "")
		expect(t, h.post(relationshipPath(a), a.Token, map[string]any{"action": "start", "date": "2025-06-16"}), 400,
			errBody("invalid_date", "date must not be in the future"))
		expect(t, h.get(relationshipPath(b), b.Token), 200, duration(156, "2025-01-10", "2025-06-15"))
	})
}

func TestRelationshipEndsWhenThePartnershipEnds(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		a, b := h.newUser("a@x.io"), h.newUser("b@x.io")
		h.pair(a, b)
		expect(t, h.post(relationshipPath(a), a.Token, map[string]any{"action": "start", "date": "2025-01-01"}), 200, "")
		h.Clock.Advance(24 * time.Hour) // 2025-06-16

		expect(t, h.keyed("POST", "/api/partnerConnections/unlink", b, map[string]any{"userId": b.ID}), 200, "")
		for _, u := range []user{a, b} {
			expect(t, h.get(relationshipPath(u), u.Token), 409, errBody("not_paired", "you need a partner for this"))
		}
		// the stored effect: ended on the day the partnership ended
		data := h.get("/api/users/user/"+a.ID+"/export", a.Token).JSON(t)["data"].(map[string]any)
		rs, ok := data["relationship"].([]any)
		if !ok || len(rs) != 1 {
			t.Fatalf("export: %v", data["relationship"])
		}
		r := rs[0].(map[string]any)
		if r["isActive"] != false || r["endDate"] != "2025-06-16" || r["startDate"] != "2025-01-01" || r["partnerId"] != b.ID {
			t.Fatalf("export: %v", r)
		}
	})
}

func TestAccountDeletionTakesPremiumAndRelationshipAlong(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		payer, partner := h.newUser("payer@x.io"), h.newUser("partner@x.io")
		h.pair(payer, partner)
		now := h.Clock.Now()
		expect(t, h.post(premiumPath(payer), payer.Token, map[string]any{"action": "create", "plan": "9.99",
			"startDate": now.UnixMilli(), "endDate": now.AddDate(0, 1, 0).UnixMilli()}), 200, "")
		expect(t, h.post(relationshipPath(partner), partner.Token, map[string]any{"action": "start", "date": "2025-01-01"}), 200, "")
		expect(t, h.premiumGet(partner, "action=status"), 200,
			`{"isPremium":true,"source":"partner","partnerId":"`+payer.ID+`","message":"premium shared by your partner"}`)

		expect(t, h.do(req{Method: "DELETE", Path: "/api/users/user/" + payer.ID, Token: payer.Token}), 200, "")
		expect(t, h.premiumGet(partner, "action=status"), 200, noPremium)
		expect(t, h.get(relationshipPath(partner), partner.Token), 409, errBody("not_paired", "you need a partner for this"))
		data := h.get("/api/users/user/"+partner.ID+"/export", partner.Token).JSON(t)["data"].(map[string]any)
		if rs, ok := data["relationship"].([]any); !ok || len(rs) != 0 {
			t.Fatalf("the couple's relationship went with the deleted account: %v", data["relationship"])
		}
	})
}

// BenchmarkRelationshipRead measures GET relationship (partnership lookup,
// latest relationship, the caller's timezone), per profile.
func BenchmarkRelationshipRead(b *testing.B) {
	benchScenario(b, func(h *harness) scenario {
		u, v := h.newUser("a@x.io"), h.newUser("b@x.io")
		h.pair(u, v)
		expect(h.t, h.post(relationshipPath(u), u.Token, map[string]any{"action": "start", "date": "2024-02-14"}), 200, "")
		return scenario{req: GET(relationshipPath(v)).by(v), status: 200, want: duration(487, "2024-02-14", "")}
	})
}
