// This file holds the hostile table's access families: every documented
// route aimed at the victim with forged tokens, forged cursors on every
// paged list, the victim's ids on the attacker's own paths, and file keys
// outside their owner's.

package tests

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"

	"tandem/adapters/httpapi"
	"tandem/core"
)

// The routes of /openapi.json, filled for one user.
type apiRoute struct{ method, path string }

func documentedRoutes(t *testing.T) []apiRoute {
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(httpapi.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	var out []apiRoute
	for path, ops := range doc.Paths {
		for method := range ops {
			if m := strings.ToUpper(method); slices.Contains([]string{"GET", "POST", "PUT", "PATCH", "DELETE"}, m) {
				out = append(out, apiRoute{m, path})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path+out[i].method < out[j].path+out[j].method })
	return out
}

// publicRoute needs no token (a forged one changes nothing there): the
// auth routes but logout and the passkey registration, the app association
// files under /.well-known/. The stores' webhooks authenticate by signature or push secret: their forged
// notifications are in premium_appstore_test.go and premium_play_test.go.
func publicRoute(r apiRoute) bool {
	return strings.HasPrefix(r.path, "/api/auth/") && r.path != "/api/auth/logout" &&
		!strings.HasPrefix(r.path, "/api/auth/passkeys/register/") ||
		slices.Contains([]string{"/healthz", "/readyz", "/openapi.json", "/api/version-check"}, r.path) ||
		strings.HasPrefix(r.path, "/files/") || strings.HasPrefix(r.path, "/api/webhooks/") ||
		strings.HasPrefix(r.path, "/.well-known/")
}

// fillPath puts u's id and the given records into a documented path.
func fillPath(path, userID string, ids map[string]string) string {
	path = strings.ReplaceAll(path, "{userId}", userID)
	for k, v := range ids {
		path = strings.ReplaceAll(path, "{"+k+"}", v)
	}
	return path
}

// routeRows aim every documented route at the victim with the attacker's
// token (403), and send every route that needs a token a forged, a revoked,
// a deleted account's and a malformed one (401).
func (w *world) routeRows(t *testing.T) []hostile {
	victims := map[string]string{"eventId": w.vEvent, "memoryId": w.vMemory, "imageId": w.vImage, "groupId": w.vGroup,
		"sessionId": w.vSession, "deviceId": w.vDevice, "platform": "ios"}
	mine := map[string]string{"eventId": w.aEvent, "memoryId": w.aMemory, "imageId": w.aImage, "groupId": w.aGroup,
		"sessionId": "s", "deviceId": "d", "platform": "ios"}
	var rows []hostile
	for _, r := range documentedRoutes(t) {
		keyed := strings.HasPrefix(r.path, "/api/messages/") || strings.HasPrefix(r.path, "/api/partnerConnections/")
		mk := func(name, path, token string, status int, want string) hostile {
			q := req{Method: r.method, Path: path, Token: token}
			if r.method != "GET" && r.method != "DELETE" {
				q.Body = map[string]any{}
			}
			if keyed {
				q = q.withKey()
			}
			return hostile{scenario: scenario{name: name + "/" + r.method + " " + r.path, req: q, status: status, want: want},
				prepare: w.limited(path)}
		}
		if strings.Contains(r.path, "{userId}") {
			rows = append(rows, mk("another user's path", fillPath(r.path, w.V.ID, victims), w.A.Token, 403, errNotYours))
		}
		if publicRoute(r) {
			continue
		}
		path := fillPath(r.path, w.A.ID, mine)
		invalid := errBody("unauthorized", "missing, invalid or expired token")
		for _, tok := range []struct{ name, token string }{{"forged token", forgedTok}, {"revoked token", w.revokedToken},
			{"deleted account's token", w.goneToken}} {
			rows = append(rows, mk(tok.name, path, tok.token, 401, invalid))
		}
		malformed := mk("malformed Authorization", path, "", 401, errBody("unauthorized", "use Authorization: Bearer <token>"))
		malformed.req = malformed.req.with("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte("attacker:"+pw)))
		rows = append(rows, malformed)
	}
	return rows
}

// cursorRows send forged cursors to every paged list.
func (w *world) cursorRows() []hostile {
	A := "/api/users/user/" + w.A.ID
	lists := []struct {
		path  string
		keyed bool
		token string
	}{
		{A + "/events?limit=1", false, w.A.Token}, {A + "/memories?limit=1", false, w.A.Token},
		{A + "/memories/date-range?startDate=2000-01-01&endDate=2030-01-01&limit=1", false, w.A.Token},
		{A + "/images?limit=1", false, w.A.Token}, {A + "/notifications?limit=1", false, w.A.Token},
		{A + "/feedback?limit=1", false, w.A.Token}, {A + "/daily-question/history?limit=1", false, w.A.Token},
		{"/api/messages/list?limit=1", true, w.A.Token}, {"/api/admin/feedback?limit=1", false, w.admin.Token},
		{"/api/feature-flags?action=all&limit=1", false, w.admin.Token},
	}
	cursors := []struct{ name, value string }{
		{"garbage", "!!not-a-cursor!!"},
		{"SQL", sqlMeta},
		{"SQL inside", core.EncodeCursor("1' OR '1'='1", "x' OR '1'='1")},
		{"three parts of SQL", core.EncodeCursor(sqlMeta, sqlMeta, sqlMeta)},
		{"invalid UTF-8 inside", base64.RawURLEncoding.EncodeToString([]byte("2025-06-20\x1f\xff\xfe"))},
		{"padding bits set", paddingBitsSet(core.EncodeCursor("2025-06-20", "xy"))},
		{"a line break", core.EncodeCursor("1718000000000", "id") + "\n"},
		// 3 KB: longer cursors pass fasthttp's 4 KiB header limit, whose
		// answer (431, then a close) a client still writing may lose to a reset
		{"3 KB of base64", strings.Repeat("A", 3000)},
		{"a huge number", core.EncodeCursor("99999999999999999999999", "id")},
	}
	var rows []hostile
	for _, l := range lists {
		for _, c := range cursors {
			q := req{Method: "GET", Path: l.path + "&cursor=" + url.QueryEscape(c.value), Token: l.token}
			if l.keyed {
				q = q.withKey()
			}
			rows = append(rows, hostile{scenario: scenario{name: "forged cursor/" + c.name + " " + strings.SplitN(l.path, "?", 2)[0], req: q}})
		}
	}
	return rows
}

// paddingBitsSet is c (whose last character carries unused bits: a length
// of 2 or 3 mod 4) with the lowest of those bits set: the same bytes to a
// lenient base64 decoder, another string.
func paddingBitsSet(c string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	last := strings.IndexByte(alphabet, c[len(c)-1])
	return c[:len(c)-1] + string(alphabet[last|1])
}

// idRows name the victim's records on the attacker's own paths, in bodies
// and in queries: never found, never changed.
func (w *world) idRows() []hostile {
	A, V := w.A, w.V
	u := "/api/users/user/" + A.ID
	nf := func(name string, q req, status int) hostile {
		return hostile{scenario: scenario{name: "victim's id/" + name, req: q.by(A), status: status}}
	}
	return []hostile{
		nf("event read", GET(u+"/events/"+w.vEvent), 404),
		nf("event update", PUT(u+"/events/"+w.vEvent, map[string]any{"title": "mine now"}), 404),
		nf("event delete", DELETE(u+"/events/"+w.vEvent), 404),
		nf("memory read", GET(u+"/memories/"+w.vMemory), 404),
		nf("memory update", PUT(u+"/memories/"+w.vMemory, map[string]any{"title": "mine now"}), 404),
		nf("memory delete", DELETE(u+"/memories/"+w.vMemory), 404),
		nf("image read", GET(u+"/images/"+w.vImage), 404),
		nf("image delete", DELETE(u+"/images/"+w.vImage), 404),
		nf("image group read", GET(u+"/images/group/"+w.vGroup), 404),
		nf("image group delete", DELETE(u+"/images/group/"+w.vGroup), 404),
		nf("image relink to the victim's key", PUT(u+"/images/"+w.aImage, map[string]any{"url": "http://localhost:8080/files/" + w.vKey, "key": w.vKey}), 403),
		nf("image relink of the victim's image", PUT(u+"/images/"+w.vImage, map[string]any{"url": "http://localhost:8080/files/" + w.aKey, "key": w.aKey}), 404),
		nf("image group relink with the victim's image", PUT(u+"/images/group/"+w.aGroup, map[string]any{"images": []map[string]any{
			{"_id": w.vImage, "url": "http://localhost:8080/files/" + w.aKey, "key": w.aKey}}}), 404),
		nf("session delete", DELETE(u+"/sessions/"+w.vSession), 404),
		nf("device delete", DELETE(u+"/devices/"+w.vDevice), 404),
		nf("notification marked read", PATCH(u+"/notifications", map[string]any{"notificationId": w.vNotification}), 404),
		nf("reaction to the victim's answer", POST(u+"/daily-question", map[string]any{"action": "react", "messageId": w.vAnswer, "reaction": "👎"}), 404),
		nf("reply to the victim's answer", POST(u+"/daily-question", map[string]any{"action": "reply", "text": "x", "replyTo": w.vAnswer}), 404),
		nf("connection create for the victim", POST("/api/partnerConnections/create", map[string]any{"userId": V.ID, "connectionCode": "stolen-code"}).withKey(), 403),
		nf("connection link as the victim", POST("/api/partnerConnections/link", map[string]any{"userId": V.ID, "connectionCode": w.vConnection}).withKey(), 403),
		nf("connection unlink of the victim", POST("/api/partnerConnections/unlink", map[string]any{"userId": V.ID}).withKey(), 403),
		nf("connection read of the victim", GET("/api/partnerConnections/get/"+V.ID).withKey(), 403),
		nf("link with a stranger's code while paired", POST("/api/partnerConnections/link", map[string]any{"userId": A.ID, "connectionCode": w.vConnection}).withKey(), 409),
		nf("pairing code of a stranger while paired", POST(u+"/pairing", map[string]any{"action": "submit-code", "targetCode": w.freshPairingCode}), 409),
		nf("flag evaluated as the victim", GET("/api/feature-flags?flag=hostile_flag&userId="+V.ID), 403),
		nf("flags listed as the victim", GET("/api/feature-flags?action=list&userId="+V.ID), 403),
		nf("flag written by a user", POST("/api/feature-flags", map[string]any{"action": "update", "flagKey": "hostile_flag", "enabledForUserIds": []string{A.ID}}), 403),
		nf("version policy written by a user", PUT("/api/admin/version-policy/ios", map[string]any{"minRequiredVersion": "9.0.0"}), 403),
		nf("feedback of everyone", GET("/api/admin/feedback"), 403),
		nf("events of the victim in the date range", GET(withDates("/api/users/user/"+V.ID+"/events/date-range", "2025-01-01", "2025-12-31")), 403),
		nf("stream of the victim", GET("/api/users/user/"+V.ID+"/stream"), 403),
		nf("the victim's userId in a logout body", POST("/api/auth/logout", map[string]any{"userId": V.ID, "all": "yes"}), 400),
	}
}

// fileRows try to reach files outside a key's owner through the public
// files route and through the keys and addresses sent in bodies.
func (w *world) fileRows(t *testing.T) []hostile {
	A := "/api/users/user/" + w.A.ID
	victimName := w.vKey[strings.LastIndex(w.vKey, "/")+1:]
	var rows []hostile
	for _, p := range []string{
		"/files/u/../../etc/passwd", "/files/u/%2e%2e/%2e%2e/etc/passwd", "/files/u/" + w.A.ID + "/..%2f" + w.V.ID + "%2f" + victimName,
		"/files/u/" + w.A.ID + "/" + victimName, "/files/u/" + w.V.ID + "/" + victimName + "%00.png",
		"/files/u/" + w.V.ID + "/..%5c..%5c" + victimName, "/files/u/" + w.V.ID + "/" + strings.ToUpper(victimName),
		"/files/" + w.vKey + "/..", "/files/u/%00/x.jpg",
	} {
		rows = append(rows, hostile{scenario: scenario{name: "file path/" + p, req: GET(p).anonymous()}})
	}
	rows = append(rows, hostile{scenario: scenario{name: "file key in a relink/another case", req: PUT(A+"/images/"+w.aImage,
		map[string]any{"url": "http://localhost:8080/files/U/" + w.V.ID + "/" + victimName, "key": "U/" + w.V.ID + "/" + victimName}).by(w.A)}})
	for _, key := range []string{
		"u/" + w.A.ID + "/../" + w.V.ID + "/" + victimName, "../../etc/passwd", "u/" + w.A.ID + "/%2e%2e/" + victimName,
		"/u/" + w.V.ID + "/" + victimName, "u/" + w.A.ID + "//" + victimName, "u/" + w.A.ID + "/" + victimName + "\x00.jpg",
		"u/" + w.A.ID + "\\..\\" + w.V.ID + "\\" + victimName,
	} {
		rows = append(rows,
			hostile{scenario: scenario{name: "file key in a relink/" + key, req: PUT(A+"/images/"+w.aImage,
				map[string]any{"url": "http://localhost:8080/files/" + key, "key": key}).by(w.A)}},
			hostile{scenario: scenario{name: "file address in a memory/" + key, req: POST(A+"/memories",
				map[string]any{"action": "create", "title": "t", "date": "2025-06-01", "images": []string{"http://localhost:8080/files/" + key}}).by(w.A)}},
		)
	}
	for _, addr := range []string{"https://evil.example/files/" + w.aKey, "http://localhost:8080@evil.example/files/" + w.aKey,
		"javascript:alert(1)", "http://localhost:8080/files/../api/users/user/" + w.V.ID + "/export", "file:///etc/passwd"} {
		rows = append(rows, hostile{scenario: scenario{name: "image address/" + addr, req: POST(A+"/memories",
			map[string]any{"action": "create", "title": "t", "date": "2025-06-01", "images": []string{addr}}).by(w.A)}})
	}
	return rows
}
