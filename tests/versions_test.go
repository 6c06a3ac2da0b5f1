package tests

import (
	"maps"
	"strings"
	"testing"
	"time"
)

// App version checks (public) and the per-platform update policy (administrators).

const policyPath = "/api/admin/version-policy/"

// asAdmin makes boss@x.io an administrator of the app under test.
var asAdmin = withEnv("TANDEM_ADMIN_EMAILS", "boss@x.io")

// checkBody renders the expected version check result; "" is null for
// updateType, releaseNotes and deprecationDate.
func checkBody(typ, current, min, rec, latest, message, notes, url, deprecation string) string {
	if deprecation == "" {
		deprecation = "null"
	}
	return `{"updateRequired":` + bstr(typ == "required") + `,"updateRecommended":` + bstr(typ == "recommended") +
		`,"canContinue":` + bstr(typ != "required") + `,"updateType":` + nullable(typ) + `,"currentVersion":"` + current +
		`","minRequiredVersion":"` + min + `","recommendedVersion":"` + rec + `","latestVersion":"` + latest +
		`","updateMessage":"` + message + `","releaseNotes":` + nullable(notes) + `,"downloadUrl":"` + url +
		`","deprecationDate":` + deprecation + `}`
}

func (h *harness) versionCheck(body map[string]any) response {
	h.t.Helper()
	return h.post("/api/version-check", "", body)
}

func TestVersionCheckFollowsThePolicy(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		boss := h.newUser("boss@x.io")
		now := h.Clock.Now()
		store := "https://apps.apple.com/app/id1"

		// no policy: no update, the app may continue, every version is the client's
		none := checkBody("", "1.0.0", "1.0.0", "1.0.0", "1.0.0", "", "", "", "")
		expect(t, h.versionCheck(map[string]any{"platform": "ios", "currentVersion": "1.0.0"}), 200, none)
		expect(t, h.get("/api/version-check?platform=ios&version=1.0", ""), 200, none)
		expect(t, h.get(policyPath+"ios", boss.Token), 404, errBody("not_found", "no version policy for ios"))

		// an administrator sets the iOS policy; it reads back as stored
		dep := now.Add(24 * time.Hour).UnixMilli()
		stored := `{"platform":"ios","minRequiredVersion":"1.2.0","recommendedVersion":"1.4.0","latestVersion":"1.5.0+20",` +
			`"downloadUrl":"` + store + `","updateMessage":"A new version is out","releaseNotes":"Faster.","deprecationDate":` + itoa(dep) +
			`,"updatedAt":` + itoa(now.UnixMilli()) + `}`
		expect(t, h.do(req{Method: "PUT", Path: policyPath + "ios", Token: boss.Token, Body: map[string]any{
			"minRequiredVersion": "1.2", "recommendedVersion": "v1.4.0", "latestVersion": "1.5.0+20", "downloadUrl": store,
			"updateMessage": " A new version is out ", "releaseNotes": "Faster.", "deprecationDate": dep}}), 200, stored)
		expect(t, h.get(policyPath+"ios", boss.Token), 200, stored)

		cases := []struct {
			version string
			build   any // nil: not sent
			body    string
		}{
			{"1.1.9", nil, checkBody("required", "1.1.9", "1.2.0", "1.4.0", "1.5.0+20", "A new version is out", "Faster.", store, itoa(dep))},
			{"1.2.0", nil, checkBody("recommended", "1.2.0", "1.2.0", "1.4.0", "1.5.0+20", "A new version is out", "Faster.", store, itoa(dep))},
			{"1.4.0", nil, checkBody("optional", "1.4.0", "1.2.0", "1.4.0", "1.5.0+20", "A new version is out", "Faster.", store, "")},
			{"1.5.0", 19, checkBody("optional", "1.5.0+19", "1.2.0", "1.4.0", "1.5.0+20", "A new version is out", "Faster.", store, "")},
			{"1.5.0", nil, checkBody("", "1.5.0", "1.2.0", "1.4.0", "1.5.0+20", "", "", store, "")},
			{"1.5.0+20", 20, checkBody("", "1.5.0+20", "1.2.0", "1.4.0", "1.5.0+20", "", "", store, "")},
			{"2.0.0", nil, checkBody("", "2.0.0", "1.2.0", "1.4.0", "1.5.0+20", "", "", store, "")},
		}
		for _, tc := range cases {
			t.Run(tc.version, func(t *testing.T) {
				body := map[string]any{"platform": "ios", "currentVersion": tc.version, "userId": "whoever",
					"deviceInfo": map[string]any{"os": "iOS", "osVersion": "18.1", "deviceModel": "iPhone15,2", "appVersion": tc.version}}
				query := "/api/version-check?platform=ios&version=" + strings.ReplaceAll(tc.version, "+", "%2B") + "&userId=whoever"
				if tc.build != nil {
					body["currentBuildNumber"] = tc.build
					query += "&buildNumber=" + itoa(int64(tc.build.(int)))
				}
				expect(t, h.versionCheck(body), 200, tc.body)
				expect(t, h.get(query, ""), 200, tc.body)
			})
		}
		// the policy is per platform; a token on the public route changes nothing
		expect(t, h.do(req{Method: "POST", Path: "/api/version-check", Token: boss.Token,
			Body: map[string]any{"platform": "android", "currentVersion": "0.0.1"}}), 200,
			checkBody("", "0.0.1", "0.0.1", "0.0.1", "0.0.1", "", "", "", ""))

		// from the deprecation date on, below recommended is required
		h.Clock.Advance(24 * time.Hour)
		expect(t, h.versionCheck(map[string]any{"platform": "ios", "currentVersion": "1.3.0"}), 200,
			checkBody("required", "1.3.0", "1.4.0", "1.4.0", "1.5.0+20", "A new version is out", "Faster.", store, itoa(dep)))
		expect(t, h.versionCheck(map[string]any{"platform": "ios", "currentVersion": "1.4.0"}), 200,
			checkBody("optional", "1.4.0", "1.4.0", "1.4.0", "1.5.0+20", "A new version is out", "Faster.", store, ""))

		// replacing the policy drops what the new body leaves out
		expect(t, h.do(req{Method: "PUT", Path: policyPath + "ios", Token: boss.Token, Body: map[string]any{
			"minRequiredVersion": "2.0.0", "recommendedVersion": "2.0.0", "latestVersion": "2.1.0", "downloadUrl": store,
			"updateMessage": "Version 2", "releaseNotes": nil}}), 200, "")
		expect(t, h.get(policyPath+"ios", boss.Token), 200, `{"platform":"ios","minRequiredVersion":"2.0.0","recommendedVersion":"2.0.0",`+
			`"latestVersion":"2.1.0","downloadUrl":"`+store+`","updateMessage":"Version 2","releaseNotes":null,"deprecationDate":null,`+
			`"updatedAt":`+itoa(h.Clock.Now().UnixMilli())+`}`)
		expect(t, h.versionCheck(map[string]any{"platform": "ios", "currentVersion": "1.9.9"}), 200,
			checkBody("required", "1.9.9", "2.0.0", "2.0.0", "2.1.0", "Version 2", "", store, ""))
	}, asAdmin)
}

func TestVersionErrors(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		boss, user := h.newUser("boss@x.io"), h.newUser("ann@x.io")
		valid := func(extra map[string]any) map[string]any {
			b := map[string]any{"minRequiredVersion": "1.0.0", "recommendedVersion": "1.1.0", "latestVersion": "1.2.0",
				"downloadUrl": "https://play.google.com/store/apps/details?id=x", "updateMessage": "Update"}
			maps.Copy(b, extra) // a nil value is sent as null
			return b
		}
		check := func(body any) req { return POST("/api/version-check", body).anonymous() }
		put := func(platform string, body any) req { return PUT(policyPath+platform, body) }
		build := "currentBuildNumber must be a whole number from 0 to 999999999"
		badPlatform := errInvalid("platform must be ios, android or web")
		unordered := errInvalid("versions must satisfy minRequiredVersion ≤ recommendedVersion ≤ latestVersion")
		nothingStored := func(t *testing.T, h *harness) {
			expect(t, h.get(policyPath+"android", boss.Token), 404, errBody("not_found", "no version policy for android"))
			expect(t, h.versionCheck(map[string]any{"platform": "android", "currentVersion": "0.1.0"}), 200,
				checkBody("", "0.1.0", "0.1.0", "0.1.0", "0.1.0", "", "", "", ""))
		}
		runScenarios(t, h, afterEach(nothingStored, signedIn(boss, []scenario{
			{name: "check: malformed JSON", req: check(`{"platform":`), status: 400, want: errInvalid("malformed JSON")},
			{name: "check: no platform", req: check(map[string]any{"currentVersion": "1.0.0"}), status: 400,
				want: errInvalid("platform is required: ios, android or web")},
			{name: "check: unknown platform", req: check(map[string]any{"platform": "symbian", "currentVersion": "1.0.0"}), status: 400,
				want: badPlatform},
			{name: "check: platform not a string", req: check(map[string]any{"platform": 1, "currentVersion": "1.0.0"}), status: 400,
				want: errInvalid("field platform must be a string")},
			{name: "check: no version", req: check(map[string]any{"platform": "ios"}), status: 400, want: errInvalid("currentVersion is required")},
			{name: "check: bad version", req: check(map[string]any{"platform": "ios", "currentVersion": "1.x"}), status: 400,
				want: errBody("invalid_version", `\"1.x\" is not a version MAJOR.MINOR.PATCH`)},
			{name: "check: build as a string", req: check(map[string]any{"platform": "ios", "currentVersion": "1.0.0", "currentBuildNumber": "45"}), status: 400,
				want: errBody("invalid_version", build)},
			{name: "check: negative build", req: check(map[string]any{"platform": "ios", "currentVersion": "1.0.0", "currentBuildNumber": -1}), status: 400,
				want: errBody("invalid_version", build)},
			{name: "check: fractional build", req: check(map[string]any{"platform": "ios", "currentVersion": "1.0.0", "currentBuildNumber": 4.5}), status: 400,
				want: errBody("invalid_version", build)},
			{name: "check: builds disagree", req: check(map[string]any{"platform": "ios", "currentVersion": "1.0.0+4", "currentBuildNumber": 5}), status: 400,
				want: errBody("invalid_version", "the build in the version and the build number disagree")},
			{name: "check: long userId", req: check(map[string]any{"platform": "ios", "currentVersion": "1.0.0", "userId": strings.Repeat("u", 65)}), status: 400,
				want: errInvalid("userId must be at most 64 characters")},
			{name: "check: deviceInfo not an object", req: check(map[string]any{"platform": "ios", "currentVersion": "1.0.0", "deviceInfo": "phone"}), status: 400,
				want: errInvalid("field deviceInfo must be an object")},
			{name: "check: not JSON", req: POST("/api/version-check", "x").asText(), status: 415, want: errNotJSON},
			{name: "GET check: no version", req: GET("/api/version-check?platform=ios").anonymous(), status: 400,
				want: errInvalid("version is required")},
			{name: "GET check: bad build", req: GET("/api/version-check?platform=web&version=1.0.0&buildNumber=%2B5").anonymous(), status: 400,
				want: errBody("invalid_version", "buildNumber must be a whole number from 0 to 999999999")},
			{name: "GET check: no platform", req: GET("/api/version-check?version=1.0.0").anonymous(), status: 400,
				want: errInvalid("platform is required: ios, android or web")},

			{name: "policy PUT without a token", req: PUT(policyPath+"android", valid(nil)).anonymous(), status: 401, want: errNoToken},
			{name: "policy PUT by a non-administrator", req: PUT(policyPath+"android", valid(nil)).by(user), status: 403, want: errAdminsOnly},
			{name: "policy GET without a token", req: GET(policyPath + "android").anonymous(), status: 401, want: errNoToken},
			{name: "policy GET by a non-administrator", req: GET(policyPath + "android").by(user), status: 403, want: errAdminsOnly},
			{name: "policy: unknown platform", req: put("palm", valid(nil)), status: 400, want: badPlatform},
			{name: "policy GET: unknown platform", req: GET(policyPath + "palm"), status: 400, want: badPlatform},
			{name: "policy: min above recommended", req: put("android", valid(map[string]any{"minRequiredVersion": "1.1.1"})), status: 400,
				want: unordered},
			{name: "policy: recommended above latest", req: put("android", valid(map[string]any{"recommendedVersion": "1.3.0"})), status: 400,
				want: unordered},
			{name: "policy: bad version", req: put("android", valid(map[string]any{"latestVersion": "latest"})), status: 400,
				want: errBody("invalid_version", `latestVersion \"latest\" is not a version MAJOR.MINOR.PATCH`)},
			{name: "policy: missing version", req: put("android", valid(map[string]any{"minRequiredVersion": nil})), status: 400,
				want: errInvalid("minRequiredVersion is required")},
			{name: "policy: http url", req: put("android", valid(map[string]any{"downloadUrl": "http://play.google.com/x"})), status: 400,
				want: errInvalid("downloadUrl must be an https URL of at most 2048 characters")},
			{name: "policy: no url", req: put("android", valid(map[string]any{"downloadUrl": ""})), status: 400, want: errInvalid("downloadUrl is required")},
			{name: "policy: no message", req: put("android", valid(map[string]any{"updateMessage": " "})), status: 400, want: errInvalid("updateMessage is required")},
			{name: "policy: deprecation as a string", req: put("android", valid(map[string]any{"deprecationDate": "2030-01-01"})), status: 400,
				want: errInvalid("deprecationDate must be a whole number of milliseconds since the epoch")},
			{name: "policy: version not a string", req: put("android", valid(map[string]any{"latestVersion": 2})), status: 400,
				want: errInvalid("field latestVersion must be a string")},
			{name: "policy: empty body", req: put("android", ""), status: 400, want: errInvalid("request body is empty")},
			{name: "policy: DELETE is no route", req: DELETE(policyPath + "android"), status: 405, want: errNotAllowed},
		})))
	}, asAdmin)
}

// BenchmarkVersionCheck measures the hot public path: one read by key.
func BenchmarkVersionCheck(b *testing.B) {
	benchScenario(b, func(h *harness) scenario {
		boss := h.newUser("boss@x.io")
		expect(h.t, h.do(PUT(policyPath+"ios", map[string]any{"minRequiredVersion": "1.0.0", "recommendedVersion": "1.1.0",
			"latestVersion": "1.2.0", "downloadUrl": "https://apps.apple.com/app/id1", "updateMessage": "Update"}).by(boss)), 200, "")
		return scenario{req: GET("/api/version-check?platform=ios&version=1.0.5"), status: 200}
	}, asAdmin)
}
