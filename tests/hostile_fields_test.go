// This file holds the hostile table's body families: poisoned fields (each
// string field of each JSON route's body with the values hostile to its
// kind) and broken bodies (repeated keys, wrong types, nesting, size).

package tests

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// poisonedFields is every n-th field row from the k-th: the family is the
// largest (about 680 rows), so it runs in n worlds side by side.
func poisonedFields(k, n int) func(w *world, _ *testing.T) []hostile {
	return func(w *world, _ *testing.T) []hostile {
		var out []hostile
		for i, r := range w.fieldRows() {
			if i%n == k {
				out = append(out, r)
			}
		}
		return out
	}
}

// kind says what a field takes, and so which values are hostile to it.
type kind int

const (
	kIdent  kind = iota // an id, key, code, date, enum, address: no SQL, no spaces, nothing long
	kText               // free text: SQL metacharacters are text; control, bidi and length are not
	kLabel              // a short label without a text rule of its own (user ids in lists)
	kNumber             // a JSON number (or its digits)
	kBool               // a boolean
	kObject             // a JSON object
	kSecret             // a password: any characters, only its length is ruled
)

// field is one key of a route's body; list says it is a list of kind.
type field struct {
	name string
	kind kind
	list bool
}

// jsonRoute is a route with a JSON body: base is a body the route accepts
// (as the attacker on the attacker's own records), fields the keys to poison.
type jsonRoute struct {
	name         string
	method, path string
	token        string
	keyed        bool
	base         map[string]any
	fields       []field
}

func (w *world) jsonRoutes() []jsonRoute {
	A, admin := w.A, w.admin
	u := "/api/users/user/" + A.ID
	event := map[string]any{"action": "create", "title": "Dinner", "description": "d", "startDate": "2025-06-20",
		"endDate": "2025-06-21", "startTime": "19:00", "endTime": "22:00", "location": "Lyon", "eventType": "date",
		"importanceLevel": "High", "notify": "30", "participants": []string{"friend"}}
	eventFields := []field{{"action", kIdent, false}, {"title", kText, false}, {"description", kText, false}, {"startDate", kIdent, false},
		{"endDate", kIdent, false}, {"startTime", kIdent, false}, {"endTime", kIdent, false}, {"location", kText, false},
		{"eventType", kIdent, false}, {"importanceLevel", kIdent, false}, {"notify", kNumber, false}, {"participants", kLabel, true}}
	flagBody := map[string]any{"action": "create", "key": "new_flag", "name": "New", "description": "d", "createdBy": "me",
		"platforms": []string{"ios"}, "enabledForUserIds": []string{"someone"}, "disabledForUserIds": []string{"else"},
		"rolloutPercentage": 50, "isEnabled": true}
	policy := map[string]any{"minRequiredVersion": "1.0.0", "recommendedVersion": "1.1.0", "latestVersion": "1.4.0",
		"downloadUrl": "https://play.google.com/store/apps/details?id=x", "updateMessage": "Update", "releaseNotes": "n",
		"deprecationDate": 1767225600000}
	return []jsonRoute{
		{"profile", "PATCH", u, A.Token, false, map[string]any{"displayName": "Eve", "timezone": "Europe/Paris"},
			[]field{{"displayName", kText, false}, {"timezone", kIdent, false}}},
		{"event create", "POST", u + "/events", A.Token, false, event, eventFields},
		{"event update", "PUT", u + "/events/" + w.aEvent, A.Token, false, without(event, "action"), eventFields[1:]},
		{"memory create", "POST", u + "/memories", A.Token, false, map[string]any{"action": "create", "title": "Beach",
			"description": "d", "date": "2025-06-01", "images": []string{"http://localhost:8080/files/" + w.aKey}},
			[]field{{"action", kIdent, false}, {"title", kText, false}, {"description", kText, false}, {"date", kIdent, false}, {"images", kIdent, true}}},
		{"memory update", "PUT", u + "/memories/" + w.aMemory, A.Token, false, map[string]any{"title": "Sea", "description": "d2"},
			[]field{{"title", kText, false}, {"description", kText, false}}},
		{"message", "POST", "/api/messages/send", A.Token, true, map[string]any{"body": "hi"}, []field{{"body", kText, false}}},
		{"feedback", "POST", u + "/feedback", A.Token, false, map[string]any{"feedbackMessage": "nice"},
			[]field{{"feedbackMessage", kText, false}}},
		{"relationship", "POST", "/api/user/" + A.ID + "/relationship", A.Token, false, map[string]any{"action": "start", "date": "2025-01-01"},
			[]field{{"action", kIdent, false}, {"date", kIdent, false}}},
		{"question reply", "POST", u + "/daily-question", A.Token, false, map[string]any{"action": "reply", "text": "yes"},
			[]field{{"action", kIdent, false}, {"text", kText, false}, {"replyTo", kIdent, false}}},
		{"question react", "POST", u + "/daily-question", A.Token, false, map[string]any{"action": "react", "messageId": "MINE", "reaction": "❤️"},
			[]field{{"messageId", kIdent, false}, {"reaction", kText, false}}},
		{"premium", "POST", u + "/premiums", A.Token, false, map[string]any{"action": "create", "plan": "9.99", "startDate": 1749988800000,
			"endDate": 1781524800000, "billingId": "b-1", "platform": "android", "meta": map[string]any{"store": "play"}},
			[]field{{"action", kIdent, false}, {"plan", kText, false}, {"billingId", kLabel, false}, {"platform", kIdent, false},
				{"startDate", kNumber, false}, {"endDate", kNumber, false}, {"meta", kObject, false}}},
		{"settings", "PATCH", u + "/notification-settings", A.Token, false, map[string]any{"dailyReminderTime": "07:30", "pauseAll": true},
			[]field{{"dailyReminderTime", kIdent, false}, {"pauseAll", kBool, false}}},
		{"test notification", "POST", u + "/send-test-notification", A.Token, false, map[string]any{"title": "t", "message": "m", "category": "events"},
			[]field{{"title", kText, false}, {"message", kText, false}, {"category", kIdent, false}}},
		{"device", "POST", u + "/devices", A.Token, false, map[string]any{"token": "ExponentPushToken[attacker]", "platform": "android", "provider": "expo"},
			[]field{{"token", kIdent, false}, {"platform", kIdent, false}, {"provider", kIdent, false}}},
		{"pairing", "POST", pairingPath(w.L), w.L.Token, false, map[string]any{"action": "generate-code"},
			[]field{{"action", kIdent, false}}},
		{"connection", "POST", "/api/partnerConnections/create", A.Token, true, map[string]any{"userId": A.ID, "connectionCode": "attacker-code"},
			[]field{{"userId", kIdent, false}, {"connectionCode", kIdent, false}}},
		{"image relink", "PUT", u + "/images/" + w.aImage, A.Token, false, map[string]any{"url": "http://localhost:8080/files/" + w.aKey, "key": w.aKey},
			[]field{{"url", kIdent, false}, {"key", kIdent, false}}},
		{"version check", "POST", "/api/version-check", "", false, map[string]any{"platform": "ios", "currentVersion": "1.2.3",
			"currentBuildNumber": 7, "userId": A.ID, "deviceInfo": map[string]any{"os": "iOS"}},
			[]field{{"platform", kIdent, false}, {"currentVersion", kIdent, false}, {"currentBuildNumber", kNumber, false}, {"deviceInfo", kObject, false}}},
		{"version policy", "PUT", "/api/admin/version-policy/android", admin.Token, false, policy,
			[]field{{"minRequiredVersion", kIdent, false}, {"recommendedVersion", kIdent, false}, {"latestVersion", kIdent, false},
				{"downloadUrl", kIdent, false}, {"updateMessage", kText, false}, {"releaseNotes", kText, false}, {"deprecationDate", kNumber, false}}},
		{"flag create", "POST", "/api/feature-flags", admin.Token, false, flagBody,
			[]field{{"action", kIdent, false}, {"key", kIdent, false}, {"name", kText, false}, {"description", kText, false},
				{"createdBy", kText, false}, {"platforms", kIdent, true}, {"enabledForUserIds", kLabel, true},
				{"disabledForUserIds", kLabel, true}, {"rolloutPercentage", kNumber, false}, {"isEnabled", kBool, false}}},
		{"signup", "POST", "/api/auth/signup/email", noAuth, false, map[string]any{"email": "new@x.io", "password": pw},
			[]field{{"email", kIdent, false}, {"password", kSecret, false}}},
		{"login", "POST", "/api/auth/login/email", noAuth, false, map[string]any{"email": "attacker@x.io", "password": pw},
			[]field{{"email", kIdent, false}, {"password", kSecret, false}}},
		{"reset", "POST", "/api/auth/reset", noAuth, false, map[string]any{"email": "replay@x.io"},
			[]field{{"email", kIdent, false}}},
		{"reset code", "POST", "/api/auth/reset", noAuth, false, map[string]any{"userId": w.R.ID, "code": "CODE"},
			[]field{{"userId", kIdent, false}, {"code", kIdent, false}}},
	}
}

func without(m map[string]any, key string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if k != key {
			out[k] = v
		}
	}
	return out
}

// hostileValues are the values that must be refused in a field of kind k.
func hostileValues(k kind) []struct {
	name  string
	value any
} {
	type v = struct {
		name  string
		value any
	}
	wrong := []v{{"an object", map[string]any{"$ne": nil}}, {"nested 100 deep", deep(100)}}
	switch k {
	case kIdent:
		return append([]v{{"SQL", sqlMeta}, {"128 KiB", huge}, {"NUL", "a\x00b"}, {"bidi", "\u202Eabc"},
			{"a number", 7}, {"a boolean", true}}, wrong...)
	case kText:
		return append([]v{{"SQL and NUL", sqlMeta + "\x00"}, {"128 KiB", huge}, {"bidi", sqlMeta + "\u202E"},
			{"escape", "a\x1b[31mred"}, {"a number", 7}, {"a boolean", true}}, wrong...)
	case kLabel:
		return append([]v{{"128 KiB", huge}, {"NUL", "a\x00b"}, {"bidi", "\u202Eabc"}, {"a number", 7}}, wrong...)
	case kNumber:
		return append([]v{{"SQL", sqlMeta}, {"digits as text", "1749988800000"}, {"negative", -1}, {"a fraction", 1.5},
			{"huge", json.RawMessage("1e400")}, {"a boolean", true}}, wrong...)
	case kBool:
		return append([]v{{"a string", "true"}, {"a number", 1}}, wrong...)
	case kSecret:
		return append([]v{{"128 KiB", huge}, {"a number", 7}, {"a boolean", true}}, wrong...)
	case kObject:
		return []v{{"SQL", sqlMeta}, {"a list", []any{1}}, {"nested 100 deep", json.RawMessage(strings.Repeat(`{"a":`, 100) + "1" + strings.Repeat("}", 100))}}
	}
	return nil
}

// fieldRows poison one field of each JSON route's body at a time.
func (w *world) fieldRows() []hostile {
	var rows []hostile
	for _, rt := range w.jsonRoutes() {
		for _, f := range rt.fields {
			for _, hv := range hostileValues(f.kind) {
				value := hv.value
				if f.list {
					value = []any{value}
				}
				body := edited(w.fill(rt.base), map[string]any{f.name: value})
				rows = append(rows, hostile{scenario: scenario{
					name: rt.name + "/" + f.name + " " + hv.name,
					req:  rt.request(body),
				}, prepare: w.limited(rt.path)})
			}
		}
	}
	return rows
}

// fill puts what only exists once the world does into a base body.
func (w *world) fill(base map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range base {
		switch v {
		case "MINE":
			v = w.attackerAnswer()
		case "CODE":
			v = w.h.Mail.Code("replay@x.io") // the last one mailed
		}
		out[k] = v
	}
	return out
}

func (w *world) attackerAnswer() string {
	r := w.h.get(dqPath(w.A), w.A.Token)
	conv := r.JSON(w.h.t)["conversation"].([]any)
	for _, it := range conv {
		if m := it.(map[string]any); m["userId"] == w.A.ID && m["type"] == "answer" {
			return m["id"].(string)
		}
	}
	return "none"
}

// limited is, for the routes with a per-user limit that counts every
// request (test pushes and device registrations: 20 a minute), a move of
// the clock to the next minute before the row, so the limit never answers
// in the row's place; nil for any other route.
func (w *world) limited(path string) func(*testing.T) {
	if !strings.HasSuffix(path, "/send-test-notification") && !strings.HasSuffix(path, "/devices") {
		return nil
	}
	return func(*testing.T) { w.h.Clock.Advance(time.Minute) }
}

func (rt jsonRoute) request(body any) req {
	r := req{Method: rt.method, Path: rt.path, Token: rt.token, Body: body}
	if rt.keyed {
		r = r.withKey()
	}
	return r
}

// rawJSON is base encoded, then extra appended inside its object.
func rawJSON(base map[string]any, extra string) string {
	b, _ := json.Marshal(base)
	return strings.TrimSuffix(string(b), "}") + extra + "}"
}

// bodyRows break each JSON route's body as a whole: repeated keys, keys in
// another case, nesting, a second value, null, the wrong media types.
func (w *world) bodyRows() []hostile {
	var rows []hostile
	for _, rt := range w.jsonRoutes() {
		base := w.fill(rt.base)
		first := rt.fields[0].name
		valid, _ := json.Marshal(base[first])
		other := `"` + strings.Repeat("z", 3) + `"`
		if _, isString := base[first].(string); !isString {
			other = string(valid)
		}
		add := func(name, body string, edit func(r *hostile)) {
			r := hostile{scenario: scenario{name: rt.name + "/" + name, req: rt.request(body)}, prepare: w.limited(rt.path)}
			if edit != nil {
				edit(&r)
			}
			rows = append(rows, r)
		}
		add("duplicate key", rawJSON(base, `,"`+first+`":`+other), nil)
		add("duplicate key in another case", rawJSON(base, `,"`+strings.ToUpper(first)+`":`+other), nil)
		add("nested 100 deep in an extra key", rawJSON(base, `,"extra":`+string(deep(100))), nil)
		add("nested 10001 deep", rawJSON(base, `,"extra":`+string(deep(10001))), nil)
		add("two JSON values", rawJSON(base, "")+`{}`, nil)
		add("null", `null`, nil)
		add("a JSON array", `[`+rawJSON(base, "")+`]`, nil)
		add("cut short", strings.TrimSuffix(rawJSON(base, ""), "}"), nil)
		add("cut short without Content-Type", strings.TrimSuffix(rawJSON(base, ""), "}"), func(r *hostile) { r.noType = true })
		for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded", "application/jsonp",
			"application/json-seq", "application/json; charset=iso-8859-1", "multipart/form-data; boundary=x"} {
			add("as "+ct, rawJSON(base, ""), func(r *hostile) { r.req = r.req.with("Content-Type", ct) })
		}
	}
	return rows
}
