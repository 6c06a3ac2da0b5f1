package tests

import (
	"strings"
	"testing"
	"time"
)

func premiumPath(u user) string { return "/api/users/user/" + u.ID + "/premiums" }

// premiumGet reads one GET action of the premium endpoint.
func (h *harness) premiumGet(u user, query string) response {
	h.t.Helper()
	return h.get(premiumPath(u)+"?"+query, u.Token)
}

const (
	freeLimits    = `{"projects":3,"storage":"1GB","imagesPerUpload":4,"memories":100}`
	premiumLimits = `{"projects":100,"storage":"100GB","imagesPerUpload":4,"memories":10000}`
	noPremium     = `{"isPremium":false,"source":"none","partnerId":null,"message":"no active premium"}`
	directPremium = `{"isPremium":true,"source":"direct","partnerId":null,"message":"premium through your own subscription"}`
)

func TestPremiumActionsAndStoredEffect(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		u := h.newUser("a@x.io")
		now := h.Clock.Now()
		start, end := now.Add(-24*time.Hour).UnixMilli(), now.AddDate(0, 1, 0).UnixMilli()

		// no premium yet
		expect(t, h.premiumGet(u, "action=status"), 200, noPremium)
		expect(t, h.premiumGet(u, "action=subscription"), 200, `{"success":true,"isPremium":false,"subscription":null}`)
		expect(t, h.premiumGet(u, "action=limits"), 200, `{"isPremium":false,"limits":`+freeLimits+`}`)
		expect(t, h.premiumGet(u, "action=check&feature=hd_photos"), 200, `{"hasAccess":false}`)
		expect(t, h.premiumGet(u, "action=check&feature=messages"), 200, `{"hasAccess":true}`)

		// create, read back through every GET action
		expect(t, h.post(premiumPath(u), u.Token, map[string]any{"action": "create", "plan": "9.99", "startDate": start,
			"endDate": end, "billingId": "gp-1", "platform": "android", "meta": map[string]any{"store": "play", "n": 1}}),
			200, `{"success":true,"created":true}`)
		sub := func(plan string, endMs, renewed int64, active, cancelled bool, billing, platform, meta string) string {
			return `{"success":true,"isPremium":` + bstr(active) + `,"subscription":{"plan":"` + plan + `","startDate":` + itoa(start) +
				`,"endDate":` + itoa(endMs) + `,"isActive":` + bstr(active) + `,"isPartnerInherited":false,"billingId":"` + billing +
				`","platform":"` + platform + `","lastRenewed":` + itoa(renewed) + `,"cancelled":` + bstr(cancelled) + `,"meta":` + meta + `,"store":null,"state":"active"}}`
		}
		created := now.UnixMilli()
		expect(t, h.premiumGet(u, "action=subscription"), 200, sub("9.99", end, created, true, false, "gp-1", "android", `{"n":1,"store":"play"}`))
		expect(t, h.premiumGet(u, "action=details"), 200, sub("9.99", end, created, true, false, "gp-1", "android", `{"n":1,"store":"play"}`))
		expect(t, h.premiumGet(u, "action=status"), 200, directPremium)
		expect(t, h.premiumGet(u, "action=limits"), 200, `{"isPremium":true,"limits":`+premiumLimits+`}`)
		expect(t, h.premiumGet(u, "action=check&feature=hd_photos"), 200, `{"hasAccess":true}`)
		expect(t, h.premiumGet(u, "action=check&feature=teleport"), 200, `{"hasAccess":false,"message":"unknown feature"}`)

		// update: a later endDate is a renewal; meta null clears it
		h.Clock.Advance(time.Hour)
		later := now.AddDate(0, 2, 0).UnixMilli()
		expect(t, h.post(premiumPath(u), u.Token, map[string]any{"action": "update", "plan": "19.99", "endDate": later, "meta": nil}),
			200, `{"success":true,"updated":true}`)
		renewed := h.Clock.Now().UnixMilli()
		expect(t, h.premiumGet(u, "action=subscription"), 200, sub("19.99", later, renewed, true, false, "gp-1", "android", `{}`))

		// cancel, then deactivate again: inactive, cancelled, not premium
		expect(t, h.post(premiumPath(u), u.Token, map[string]any{"action": "cancel"}), 200, `{"success":true,"deactivated":true}`)
		expect(t, h.post(premiumPath(u), u.Token, map[string]any{"action": "deactivate"}), 200, `{"success":true,"deactivated":true}`)
		expect(t, h.premiumGet(u, "action=subscription"), 200, sub("19.99", later, renewed, false, true, "gp-1", "android", `{}`))
		expect(t, h.premiumGet(u, "action=status"), 200, noPremium)

		// subscribe replaces the cancelled one
		h.Clock.Advance(time.Hour)
		expect(t, h.post(premiumPath(u), u.Token, map[string]any{"action": "subscribe", "plan": "4.99", "startDate": start, "endDate": end}),
			200, `{"success":true,"created":true}`)
		expect(t, h.premiumGet(u, "action=subscription"), 200, sub("4.99", end, h.Clock.Now().UnixMilli(), true, false, "", "", `{}`))

		// the export carries the user's own subscription
		data := h.get("/api/users/user/"+u.ID+"/export", u.Token).JSON(t)["data"].(map[string]any)
		if p, ok := data["premium"].(map[string]any); !ok || p["plan"] != "4.99" || p["isActive"] != true {
			t.Fatalf("export: %v", data["premium"])
		}
	})
}

func TestPremiumErrors(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		u := h.newUser("a@x.io")
		other := h.newUser("b@x.io")
		now := h.Clock.Now().UnixMilli()
		valid := map[string]any{"action": "create", "plan": "9.99", "startDate": now, "endDate": now + 1000}
		post := func(body any) req { return POST(premiumPath(u), body) }
		create := func(edit map[string]any) req { return post(edited(valid, edit)) }
		msSent := "startDate must be a whole number of milliseconds since the epoch"
		noPremium := errBody("not_found", "no premium subscription")
		unchanged := func(t *testing.T, h *harness) {
			expect(t, h.premiumGet(u, "action=subscription"), 200, `{"success":true,"isPremium":false,"subscription":null}`)
			expect(t, h.premiumGet(other, "action=subscription"), 200, `{"success":true,"isPremium":false,"subscription":null}`)
		}
		runScenarios(t, h, afterEach(unchanged, signedIn(u, []scenario{
			{name: "GET without action", req: GET(premiumPath(u)), status: 400,
				want: errInvalid("action is required: status, subscription, details, limits, check")},
			{name: "GET unknown action", req: GET(premiumPath(u) + "?action=buy"), status: 400,
				want: errInvalid(`unknown action \"buy\": use status, subscription, details, limits, check`)},
			{name: "check without feature", req: GET(premiumPath(u) + "?action=check"), status: 400, want: errInvalid("feature is required")},
			{name: "POST without action", req: post(map[string]any{"plan": "9.99"}), status: 400,
				want: errInvalid("action is required: create, subscribe, update, cancel, deactivate")},
			{name: "POST unknown action", req: post(map[string]any{"action": "renew"}), status: 400,
				want: errInvalid(`unknown action \"renew\": use create, subscribe, update, cancel, deactivate`)},
			{name: "update without premium", req: post(map[string]any{"action": "update", "plan": "1"}), status: 404, want: noPremium},
			{name: "cancel without premium", req: post(map[string]any{"action": "cancel"}), status: 404, want: noPremium},
			{name: "deactivate without premium", req: post(map[string]any{"action": "deactivate"}), status: 404, want: noPremium},
			{name: "empty plan", req: create(map[string]any{"plan": " "}), status: 400, want: errInvalid("plan is required")},
			{name: "plan of 65", req: create(map[string]any{"plan": strings.Repeat("9", 65)}), status: 400,
				want: errInvalid("plan must be at most 64 characters")},
			{name: "plan not a string", req: create(map[string]any{"plan": 9.99}), status: 400, want: errInvalid("field plan must be a string")},
			{name: "missing dates", req: post(map[string]any{"action": "create", "plan": "9.99"}), status: 400,
				want: errInvalid("startDate and endDate are required")},
			{name: "end at start", req: create(map[string]any{"endDate": now}), status: 400, want: errInvalid("endDate must be after startDate")},
			{name: "date as a string", req: create(map[string]any{"startDate": itoa(now)}), status: 400, want: errInvalid(msSent)},
			{name: "fractional date", req: create(map[string]any{"startDate": 1.5}), status: 400, want: errInvalid(msSent)},
			{name: "negative date", req: create(map[string]any{"startDate": -1}), status: 400, want: errInvalid(msSent)},
			{name: "unknown platform", req: create(map[string]any{"platform": "windows"}), status: 400,
				want: errInvalid("platform must be ios, android or web")},
			{name: "meta not an object", req: create(map[string]any{"meta": []int{1}}), status: 400, want: errInvalid("meta must be a JSON object")},
			{name: "meta over 4 KB", req: create(map[string]any{"meta": map[string]any{"k": strings.Repeat("x", 4096)}}), status: 400,
				want: errInvalid("meta must be at most 4 KB of JSON")},
			{name: "malformed JSON", req: post(`{"action":`), status: 400, want: errInvalid("malformed JSON")},
			{name: "no token", req: GET(premiumPath(u) + "?action=status").anonymous(), status: 401, want: errNoToken},
			{name: "someone else's premium", req: POST(premiumPath(other), valid), status: 403, want: errNotYours},
		})))
	})
}

func TestPremiumExpiresByTheClock(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		u := h.newUser("a@x.io")
		now := h.Clock.Now()
		expect(t, h.post(premiumPath(u), u.Token, map[string]any{"action": "create", "plan": "9.99",
			"startDate": now.UnixMilli(), "endDate": now.Add(time.Hour).UnixMilli()}), 200, "")
		expect(t, h.premiumGet(u, "action=status"), 200, directPremium)
		h.Clock.Advance(time.Hour) // no job runs: the read decides
		expect(t, h.premiumGet(u, "action=status"), 200, noPremium)
		r := h.premiumGet(u, "action=subscription")
		expect(t, r, 200, `{"success":true,"isPremium":false,"subscription":{"plan":"9.99","startDate":`+itoa(now.UnixMilli())+
			`,"endDate":`+itoa(now.Add(time.Hour).UnixMilli())+`,"isActive":false,"isPartnerInherited":false,"billingId":"","platform":"",`+
			`"lastRenewed":`+itoa(now.UnixMilli())+`,"cancelled":false,"meta":{},"store":null,"state":"active"}}`)
		expect(t, h.premiumGet(u, "action=check&feature=hd_photos"), 200, `{"hasAccess":false}`)
	})
}

func TestPremiumIsInheritedByThePartnerUntilUnlink(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		payer, partner := h.newUser("payer@x.io"), h.newUser("partner@x.io")
		h.pair(payer, partner)
		now := h.Clock.Now()
		start, end := now.UnixMilli(), now.AddDate(0, 1, 0).UnixMilli()
		expect(t, h.post(premiumPath(payer), payer.Token, map[string]any{"action": "create", "plan": "9.99", "startDate": start,
			"endDate": end, "billingId": "apple-1", "platform": "ios", "meta": map[string]any{"receipt": "secret"}}), 200, "")

		expect(t, h.premiumGet(partner, "action=status"), 200,
			`{"isPremium":true,"source":"partner","partnerId":"`+payer.ID+`","message":"premium shared by your partner"}`)
		expect(t, h.premiumGet(partner, "action=subscription"), 200, `{"success":true,"isPremium":true,"subscription":{"plan":"9.99",`+
			`"startDate":`+itoa(start)+`,"endDate":`+itoa(end)+`,"isActive":true,"isPartnerInherited":true,"billingId":"","platform":"ios",`+
			`"lastRenewed":`+itoa(start)+`,"cancelled":false,"meta":{},"store":null,"state":"active"}}`)
		expect(t, h.premiumGet(partner, "action=limits"), 200, `{"isPremium":true,"limits":`+premiumLimits+`}`)
		expect(t, h.premiumGet(partner, "action=check&feature=custom_themes"), 200, `{"hasAccess":true}`)
		// the inherited premium is the payer's: the partner has nothing to cancel
		expect(t, h.post(premiumPath(partner), partner.Token, map[string]any{"action": "cancel"}), 404, "")
		expect(t, h.premiumGet(payer, "action=status"), 200, directPremium)

		expect(t, h.keyed("POST", "/api/partnerConnections/unlink", partner, map[string]any{"userId": partner.ID}), 200, "")
		expect(t, h.premiumGet(partner, "action=status"), 200, noPremium)
		expect(t, h.premiumGet(partner, "action=subscription"), 200, `{"success":true,"isPremium":false,"subscription":null}`)
		expect(t, h.premiumGet(partner, "action=check&feature=custom_themes"), 200, `{"hasAccess":false}`)
		expect(t, h.premiumGet(payer, "action=status"), 200, directPremium)
	})
}

func bstr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// BenchmarkPremiumInheritedStatus measures the derived status read: the
// caller's own subscription, the partner, then the partner's subscription.
func BenchmarkPremiumInheritedStatus(b *testing.B) {
	benchScenario(b, func(h *harness) scenario {
		payer, partner := h.newUser("payer@x.io"), h.newUser("partner@x.io")
		h.pair(payer, partner)
		now := h.Clock.Now()
		expect(h.t, h.post(premiumPath(payer), payer.Token, map[string]any{"action": "create", "plan": "9.99",
			"startDate": now.UnixMilli(), "endDate": now.AddDate(0, 1, 0).UnixMilli()}), 200, "")
		return scenario{req: GET(premiumPath(partner) + "?action=status").by(partner), status: 200,
			want: `{"isPremium":true,"source":"partner","partnerId":"` + payer.ID + `","message":"premium shared by your partner"}`}
	})
}
