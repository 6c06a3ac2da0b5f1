package tests

import (
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"
)

// Feature flags: public evaluation and lists, administrators' writes.

const flagsPath = "/api/feature-flags"

func (h *harness) flagWrite(u user, body map[string]any) response {
	h.t.Helper()
	return h.post(flagsPath, u.Token, body)
}

// flagCheck evaluates key as u (an administrator may name any userId) for
// the query's userId and platform ("" leaves one out).
func (h *harness) flagCheck(u user, key, userID, platform string) response {
	h.t.Helper()
	q := flagsPath + "?flag=" + key
	if userID != "" {
		q += "&userId=" + userID
	}
	if platform != "" {
		q += "&platform=" + platform
	}
	return h.get(q, u.Token)
}

func checkReply(key string, enabled bool, message, name, description string) string {
	flag := "null"
	if name != "" {
		flag = `{"name":"` + name + `","description":"` + description + `"}`
	}
	return `{"enabled":` + bstr(enabled) + `,"message":"` + message + `","flagKey":"` + key + `","flag":` + flag + `}`
}

func listReply(userID, platform string, keys ...string) string {
	return `{"userId":` + nullable(userID) + `,"enabledFlags":[` + strings.Join(quoted(keys), ",") + `],"platform":` + nullable(platform) + `}`
}

func quoted(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = `"` + s + `"`
	}
	return out
}

// flagJSON renders a flag of action=all.
func flagJSON(id, key, name, description string, enabled, premium bool, allow, deny []string, rollout int,
	platforms []string, createdBy string, created, updated int64) string {
	return `{"id":"` + id + `","key":"` + key + `","name":"` + name + `","description":"` + description +
		`","isEnabled":` + bstr(enabled) + `,"enabledForPremium":` + bstr(premium) +
		`,"enabledForUserIds":[` + strings.Join(quoted(allow), ",") + `],"disabledForUserIds":[` + strings.Join(quoted(deny), ",") +
		`],"rolloutPercentage":` + fmt.Sprint(rollout) + `,"platforms":[` + strings.Join(quoted(platforms), ",") +
		`],"createdBy":"` + createdBy + `","createdAt":` + itoa(created) + `,"updatedAt":` + itoa(updated) + `}`
}

func TestFeatureFlagStateTableAndStoredEffect(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		boss, ann, bob := h.newUser("boss@x.io"), h.newUser("ann@x.io"), h.newUser("bob@x.io")
		created := h.Clock.Now().UnixMilli()

		// absent: an unknown flag is off, not an error
		expect(t, h.flagCheck(boss, "dark_mode", ann.ID, "ios"), 200, checkReply("dark_mode", false, "feature flag not found", "", ""))
		expect(t, h.get(flagsPath+"?action=all", boss.Token), 200, `{"success":true,"flags":[]}`)

		// absent + create: present with the given isEnabled (false); createdBy defaults to the admin's e-mail
		r := h.flagWrite(boss, map[string]any{"action": "create", "key": "dark_mode", "name": "Dark mode",
			"description": "A darker theme", "isEnabled": false, "enabledForPremium": false, "rolloutPercentage": 100, "platforms": []string{}})
		expect(t, r, 200, `{"success":true,"created":true,"flagId":"<string>","message":"feature flag created"}`)
		id := r.JSON(t)["flagId"].(string)
		expect(t, h.get(flagsPath+"?action=all", boss.Token), 200, `{"success":true,"flags":[`+
			flagJSON(id, "dark_mode", "Dark mode", "A darker theme", false, false, nil, nil, 100, nil, "boss@x.io", created, created)+`]}`)
		expect(t, h.flagCheck(boss, "dark_mode", ann.ID, "ios"), 200, checkReply("dark_mode", false, "feature is disabled", "Dark mode", "A darker theme"))

		// disabled + toggle true: enabled for everyone, on every platform
		h.Clock.Advance(time.Minute)
		expect(t, h.flagWrite(boss, map[string]any{"action": "toggle", "flagKey": "dark_mode", "isEnabled": true}), 200,
			`{"success":true,"flagKey":"dark_mode","isEnabled":true,"message":"feature flag enabled"}`)
		for _, u := range []string{ann.ID, bob.ID, "not-an-account", ""} {
			expect(t, h.flagCheck(boss, "dark_mode", u, "web"), 200, checkReply("dark_mode", true, "feature is enabled", "Dark mode", "A darker theme"))
		}
		expect(t, h.get(flagsPath+"?action=list&userId="+ann.ID+"&platform=android", boss.Token), 200, listReply(ann.ID, "android", "dark_mode"))

		// update: rollout 0 with ann on the allow list and bob on the deny list
		h.Clock.Advance(time.Minute)
		updated := h.Clock.Now().UnixMilli()
		allow, deny := []string{ann.ID}, []string{bob.ID}
		expect(t, h.flagWrite(boss, map[string]any{"action": "update", "flagKey": "dark_mode", "rolloutPercentage": 0,
			"enabledForUserIds": allow, "disabledForUserIds": deny, "platforms": []string{"ios"}}), 200,
			`{"success":true,"updated":true,"flag":`+flagJSON(id, "dark_mode", "Dark mode", "A darker theme", true, false, allow, deny, 0,
				[]string{"ios"}, "boss@x.io", created, updated)+`,"message":"feature flag updated"}`)
		expect(t, h.flagCheck(boss, "dark_mode", ann.ID, "web"), 200, checkReply("dark_mode", true, "feature is enabled for this user", "Dark mode", "A darker theme"))
		expect(t, h.flagCheck(boss, "dark_mode", bob.ID, "ios"), 200, checkReply("dark_mode", false, "feature is disabled for this user", "Dark mode", "A darker theme"))
		expect(t, h.flagCheck(boss, "dark_mode", "someone", "android"), 200, checkReply("dark_mode", false, "feature is not available on this platform", "Dark mode", "A darker theme"))
		expect(t, h.flagCheck(boss, "dark_mode", "someone", "ios"), 200, checkReply("dark_mode", false, "feature is not yet enabled for this user", "Dark mode", "A darker theme"))
		expect(t, h.get(flagsPath+"?action=all", boss.Token), 200, `{"success":true,"flags":[`+
			flagJSON(id, "dark_mode", "Dark mode", "A darker theme", true, false, allow, deny, 0, []string{"ios"}, "boss@x.io", created, updated)+`]}`)

		// enabled + toggle false: off even for the allow list
		expect(t, h.flagWrite(boss, map[string]any{"action": "toggle", "flagKey": "dark_mode", "isEnabled": false}), 200,
			`{"success":true,"flagKey":"dark_mode","isEnabled":false,"message":"feature flag disabled"}`)
		expect(t, h.flagCheck(boss, "dark_mode", ann.ID, "ios"), 200, checkReply("dark_mode", false, "feature is disabled", "Dark mode", "A darker theme"))

		// the export names the flags that list the user; account deletion takes the user off every list
		data := h.get("/api/users/user/"+ann.ID+"/export", ann.Token).JSON(t)["data"].(map[string]any)
		if fmt.Sprint(data["featureFlags"]) != "map[disabledFor:[] enabledFor:[dark_mode]]" {
			t.Fatalf("export: %v", data["featureFlags"])
		}
		expect(t, h.do(req{Method: "DELETE", Path: "/api/users/user/" + ann.ID, Token: ann.Token}), 200, "")
		expect(t, h.get(flagsPath+"?action=all", boss.Token), 200, `{"success":true,"flags":[`+
			flagJSON(id, "dark_mode", "Dark mode", "A darker theme", false, false, nil, deny, 0, []string{"ios"}, "boss@x.io", created, updated)+`]}`)

		// delete: unknown, so off, everywhere; the key can be used again
		expect(t, h.flagWrite(boss, map[string]any{"action": "delete", "flagKey": "dark_mode"}), 200,
			`{"success":true,"deleted":true,"flagKey":"dark_mode","message":"feature flag deleted"}`)
		expect(t, h.flagCheck(boss, "dark_mode", bob.ID, "ios"), 200, checkReply("dark_mode", false, "feature flag not found", "", ""))
		expect(t, h.get(flagsPath+"?action=all", boss.Token), 200, `{"success":true,"flags":[]}`)
		expect(t, h.flagWrite(boss, map[string]any{"action": "create", "key": "dark_mode", "name": "Again", "createdBy": "release-bot"}), 200, "")
		expect(t, h.get(flagsPath+"?action=all", boss.Token), 200, `{"success":true,"flags":[`+
			flagJSON("<string>", "dark_mode", "Again", "", false, false, nil, nil, 100, nil, "release-bot", h.Clock.Now().UnixMilli(), h.Clock.Now().UnixMilli())+`]}`)
	}, asAdmin)
}

// TestFeatureFlagPremiumIsDerived: enabledForPremium follows the premium
// module, inherited premium included, and ends with the partnership.
func TestFeatureFlagPremiumIsDerived(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		boss, payer, partner, free := h.newUser("boss@x.io"), h.newUser("payer@x.io"), h.newUser("partner@x.io"), h.newUser("free@x.io")
		expect(t, h.flagWrite(boss, map[string]any{"action": "create", "key": "hd_photos", "name": "HD", "isEnabled": true,
			"enabledForPremium": true}), 200, "")
		expect(t, h.flagWrite(boss, map[string]any{"action": "create", "key": "everyone", "name": "E", "isEnabled": true}), 200, "")
		expect(t, h.flagWrite(boss, map[string]any{"action": "create", "key": "web.only", "name": "W", "isEnabled": true,
			"platforms": []string{"web"}}), 200, "")
		now := h.Clock.Now()
		expect(t, h.post(premiumPath(payer), payer.Token, map[string]any{"action": "create", "plan": "9.99",
			"startDate": now.UnixMilli(), "endDate": now.AddDate(0, 1, 0).UnixMilli()}), 200, "")
		h.pair(payer, partner)

		premiumOn := checkReply("hd_photos", true, "feature is enabled", "HD", "")
		premiumOff := checkReply("hd_photos", false, "feature is for premium users", "HD", "")
		expect(t, h.flagCheck(boss, "hd_photos", payer.ID, "ios"), 200, premiumOn)
		expect(t, h.flagCheck(boss, "hd_photos", partner.ID, "ios"), 200, premiumOn) // inherited
		expect(t, h.flagCheck(boss, "hd_photos", free.ID, "ios"), 200, premiumOff)
		expect(t, h.flagCheck(boss, "hd_photos", "no-such-account", "ios"), 200, premiumOff)
		expect(t, h.flagCheck(boss, "hd_photos", "", "ios"), 200, premiumOff)
		expect(t, h.get(flagsPath+"?action=list&userId="+partner.ID+"&platform=web", boss.Token), 200, listReply(partner.ID, "web", "everyone", "hd_photos", "web.only"))
		expect(t, h.get(flagsPath+"?action=list&userId="+free.ID+"&platform=ios", boss.Token), 200, listReply(free.ID, "ios", "everyone"))
		expect(t, h.get(flagsPath+"?action=list", ""), 200, listReply("", "", "everyone"))

		expect(t, h.keyed("POST", "/api/partnerConnections/unlink", partner, map[string]any{"userId": partner.ID}), 200, "")
		expect(t, h.flagCheck(boss, "hd_photos", partner.ID, "ios"), 200, premiumOff)
		h.Clock.Advance(31 * 24 * time.Hour) // the payer's subscription ends by the clock
		expect(t, h.flagCheck(boss, "hd_photos", payer.ID, "ios"), 200, premiumOff)
	}, asAdmin)
}

// TestFeatureFlagRolloutIsStable: the same users are in at every read, and
// raising the percentage keeps everyone who was in.
func TestFeatureFlagRolloutIsStable(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		boss := h.newUser("boss@x.io")
		expect(t, h.flagWrite(boss, map[string]any{"action": "create", "key": "gradual", "name": "G", "isEnabled": true,
			"rolloutPercentage": 30}), 200, "")
		in := func() map[string]bool {
			got := map[string]bool{}
			for i := range 60 {
				u := fmt.Sprint("user-", i)
				got[u] = h.flagCheck(boss, "gradual", u, "").JSON(t)["enabled"] == true
			}
			return got
		}
		at30 := in()
		if fmt.Sprint(in()) != fmt.Sprint(at30) {
			t.Fatal("the rollout changed between two reads")
		}
		expect(t, h.flagWrite(boss, map[string]any{"action": "update", "flagKey": "gradual", "rolloutPercentage": 60}), 200, "")
		at60, n30, n60 := in(), 0, 0
		for u, on := range at30 {
			if on && !at60[u] {
				t.Fatalf("%s dropped when the rollout rose", u)
			}
			if on {
				n30++
			}
			if at60[u] {
				n60++
			}
		}
		if n30 == 0 || n60 <= n30 || n60 == 60 {
			t.Fatalf("30%%: %d of 60, 60%%: %d of 60", n30, n60)
		}
	}, asAdmin)
}

func TestFeatureFlagAdministratorsPageThroughAll(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		boss := h.newUser("boss@x.io")
		for _, k := range []string{"c", "a", "e", "b", "d"} {
			expect(t, h.flagWrite(boss, map[string]any{"action": "create", "key": k, "name": k}), 200, "")
		}
		var got []string
		all := pages(t, 2, func(q string) response { return h.get(flagsPath+"?action=all&"+q, boss.Token) })
		for _, r := range all {
			for _, f := range r.JSON(t)["flags"].([]any) {
				got = append(got, f.(map[string]any)["key"].(string))
			}
		}
		if len(all) != 3 {
			t.Fatalf("%d pages", len(all))
		}
		if strings.Join(got, ",") != "a,b,c,d,e" {
			t.Fatalf("pages: %v", got)
		}
	}, asAdmin)
}

func TestFeatureFlagErrors(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		boss, user := h.newUser("boss@x.io"), h.newUser("ann@x.io")
		expect(t, h.flagWrite(boss, map[string]any{"action": "create", "key": "existing", "name": "Existing", "isEnabled": true,
			"rolloutPercentage": 40, "enabledForUserIds": []string{"u1"}}), 200, "")
		create := func(extra map[string]any) req {
			b := map[string]any{"action": "create", "key": "fresh", "name": "Fresh"}
			maps.Copy(b, extra) // a nil value is sent as null
			return POST(flagsPath, b)
		}
		write := func(b map[string]any) req { return POST(flagsPath, b) }
		public := func(query string) req { return GET(flagsPath + query).anonymous() }
		rollout := "rolloutPercentage must be a whole number from 0 to 100"
		badKey := "key must be 1 to 64 characters of a-z, 0-9, _, . and -, starting with a-z or 0-9"
		notFound := errBody("not_found", "feature flag not found")
		badPlatform := errInvalid("platform must be ios, android or web")
		now := h.Clock.Now().UnixMilli()
		unchanged := func(t *testing.T, h *harness) {
			expect(t, h.get(flagsPath+"?action=all", boss.Token), 200, `{"success":true,"flags":[`+
				flagJSON("<string>", "existing", "Existing", "", true, false, []string{"u1"}, nil, 40, nil, "boss@x.io", now, now)+`]}`)
		}
		runScenarios(t, h, afterEach(unchanged, signedIn(boss, []scenario{
			{name: "GET without flag or action", req: public(""), status: 400, want: errInvalid("flag is required: the key of a feature flag")},
			{name: "GET unknown action", req: public("?action=mine"), status: 400,
				want: errInvalid(`unknown action \"mine\": use list or all, or flag=<key> without action`)},
			{name: "GET a key no flag can have: unknown, off", req: public("?flag=Dark%20Mode"), status: 200,
				want: `{"enabled":false,"message":"feature flag not found","flagKey":"Dark Mode","flag":null}`},
			{name: "GET unknown platform", req: public("?flag=existing&platform=tv"), status: 400, want: badPlatform},
			{name: "GET list with an unknown platform", req: public("?action=list&platform=IOS"), status: 400, want: badPlatform},
			{name: "GET long userId", req: public("?flag=existing&userId=" + strings.Repeat("u", 65)), status: 400,
				want: errInvalid("userId must be at most 64 characters")},
			{name: "GET all without a token", req: public("?action=all"), status: 401, want: errNoToken},
			{name: "GET all by a non-administrator", req: GET(flagsPath + "?action=all").by(user), status: 403, want: errAdminsOnly},
			{name: "GET all with a bad limit", req: GET(flagsPath + "?action=all&limit=501"), status: 400,
				want: errInvalid("limit must be a whole number from 1 to 500")},
			{name: "GET all with a bad cursor", req: GET(flagsPath + "?action=all&limit=5&cursor=xyz"), status: 400,
				want: errInvalid("cursor is not one this server handed out")},

			{name: "POST without a token", req: write(map[string]any{"action": "create", "key": "k", "name": "K"}).anonymous(), status: 401,
				want: errNoToken},
			{name: "POST by a non-administrator", req: write(map[string]any{"action": "toggle", "flagKey": "existing", "isEnabled": false}).by(user), status: 403,
				want: errAdminsOnly},
			{name: "POST without action", req: write(map[string]any{"key": "k"}), status: 400,
				want: errInvalid("action is required: create, toggle, update, delete")},
			{name: "POST unknown action", req: write(map[string]any{"action": "rename"}), status: 400,
				want: errInvalid(`unknown action \"rename\": use create, toggle, update, delete`)},
			{name: "POST malformed JSON", req: POST(flagsPath, `{"action":"create"`), status: 400, want: errInvalid("malformed JSON")},
			{name: "create: taken key", req: create(map[string]any{"key": "existing"}), status: 409,
				want: errBody("conflict", "a feature flag with this key already exists")},
			{name: "create: no key", req: create(map[string]any{"key": nil}), status: 400, want: errInvalid("key is required")},
			{name: "create: bad key", req: create(map[string]any{"key": "new flag"}), status: 400, want: errInvalid(badKey)},
			{name: "create: key \".\"", req: create(map[string]any{"key": "."}), status: 400, want: errInvalid(badKey)},
			{name: "create: key \"..\"", req: create(map[string]any{"key": ".."}), status: 400, want: errInvalid(badKey)},
			{name: "create: key of 65", req: create(map[string]any{"key": strings.Repeat("k", 65)}), status: 400, want: errInvalid(badKey)},
			{name: "create: no name", req: create(map[string]any{"name": ""}), status: 400, want: errInvalid("name is required")},
			{name: "create: rollout 101", req: create(map[string]any{"rolloutPercentage": 101}), status: 400, want: errInvalid(rollout)},
			{name: "create: rollout 12.5", req: create(map[string]any{"rolloutPercentage": 12.5}), status: 400, want: errInvalid(rollout)},
			{name: "create: rollout as a string", req: create(map[string]any{"rolloutPercentage": "50"}), status: 400,
				want: errInvalid("field rolloutPercentage must be a number")},
			{name: "create: isEnabled as a string", req: create(map[string]any{"isEnabled": "true"}), status: 400,
				want: errInvalid("field isEnabled must be a boolean")},
			{name: "create: unknown platform", req: create(map[string]any{"platforms": []string{"ios", "windows"}}), status: 400,
				want: errInvalid("platforms may hold only ios, android and web")},
			{name: "create: platforms not an array", req: create(map[string]any{"platforms": "ios"}), status: 400,
				want: errInvalid("field platforms must be an array")},
			{name: "create: a user in both lists", req: create(map[string]any{"enabledForUserIds": []string{"x"}, "disabledForUserIds": []string{"x"}}), status: 400,
				want: errInvalid(`user \"x\" is in both enabledForUserIds and disabledForUserIds`)},
			{name: "create: 1001 listed users", req: create(map[string]any{"enabledForUserIds": manyIDs(1001)}), status: 400,
				want: errInvalid("enabledForUserIds may hold at most 1000 user ids")},
			{name: "toggle: unknown flag", req: write(map[string]any{"action": "toggle", "flagKey": "ghost", "isEnabled": true}), status: 404,
				want: notFound},
			{name: "toggle: no isEnabled", req: write(map[string]any{"action": "toggle", "flagKey": "existing"}), status: 400,
				want: errInvalid("isEnabled is required: true or false")},
			{name: "toggle: no flagKey", req: write(map[string]any{"action": "toggle", "isEnabled": true}), status: 400,
				want: errInvalid("flagKey is required")},
			{name: "update: unknown flag", req: write(map[string]any{"action": "update", "flagKey": "ghost", "name": "X"}), status: 404,
				want: notFound},
			{name: "update: nothing to change", req: write(map[string]any{"action": "update", "flagKey": "existing"}), status: 400,
				want: errInvalid("send at least one of name, description, isEnabled, enabledForPremium, rolloutPercentage, platforms, enabledForUserIds, disabledForUserIds")},
			{name: "update: one bad field refuses all", req: write(map[string]any{"action": "update", "flagKey": "existing", "isEnabled": false, "rolloutPercentage": -5}), status: 400,
				want: errInvalid(rollout)},
			{name: "update: a listed user in both lists", req: write(map[string]any{"action": "update", "flagKey": "existing", "disabledForUserIds": []string{"u1"}}), status: 400,
				want: errInvalid(`user \"u1\" is in both enabledForUserIds and disabledForUserIds`)},
			{name: "delete: unknown flag", req: write(map[string]any{"action": "delete", "flagKey": "ghost"}), status: 404, want: notFound},
			{name: "delete: no flagKey", req: write(map[string]any{"action": "delete"}), status: 400, want: errInvalid("flagKey is required")},
			{name: "PUT is no route", req: PUT(flagsPath, map[string]any{}), status: 405, want: errNotAllowed},
		})))
	}, asAdmin)
}

func manyIDs(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprint("user-", i)
	}
	return out
}

// BenchmarkFeatureFlagList measures the public list: every flag evaluated
// for one user, premium asked once.
func BenchmarkFeatureFlagList(b *testing.B) {
	benchScenario(b, func(h *harness) scenario {
		boss := h.newUser("boss@x.io")
		for i := range 20 {
			expect(h.t, h.flagWrite(boss, map[string]any{"action": "create", "key": fmt.Sprint("flag-", i), "name": "F",
				"isEnabled": true, "enabledForPremium": i%4 == 0, "rolloutPercentage": 50}), 200, "")
		}
		return scenario{req: GET(flagsPath + "?action=list&userId=" + boss.ID + "&platform=ios").by(boss), status: 200}
	}, asAdmin)
}
