package tests

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"tandem/adapters/httpapi"
	"tandem/core"
)

// The hostile-input table: hundreds of requests an attacker might send,
// generated from the routes (every JSON route and every string field of its
// body times every hostile value; every documented route times another
// user's id and forged tokens; every list times forged cursors) plus the
// cases no generator reaches (traversal in file keys, header injection,
// replayed and expired codes and tokens). Each must get a 4xx with the one
// error body and change nothing: after each row the exports of four users
// (the attacker, the attacker's partner, the victim and the victim's
// partner), the feature flags and the version policies are byte for byte
// what they were before the table ran.

// hostile is one row: a scenario whose status 0 means "any 4xx" and whose
// want "" means the error shape (errShape); raw, when set, is sent as the
// bytes of an HTTP/1.1 request head instead of req; noType drops the
// Content-Type the harness adds to a body; prepare runs first (a clock move).
type hostile struct {
	scenario
	raw     string
	rawBody []byte
	noType  bool
	prepare func(t *testing.T)
}

// errShape is the one error body: success false, an error, a code, a message.
const errShape = `{"success":false,"error":"<string>","code":"<string>","message":"<string>"}`

const (
	sqlMeta   = `' OR '1'='1'; DROP TABLE users; -- ";`
	forgedTok = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" // 43 base64url characters, as real tokens
)

// huge is a 128 KiB string of SQL metacharacters: eight times the longest
// any field takes (16,384 characters), and, escaped in JSON, still within
// production's 256 KiB body limit. It was 1 MiB, which no production body
// can carry; under the race detector its rows were most of the table's time.
var huge = strings.Repeat(`'";--\/*%_`, (128<<10)/10+1)[:128<<10]

// deep is JSON nested n arrays deep.
func deep(n int) json.RawMessage {
	return json.RawMessage(strings.Repeat("[", n) + strings.Repeat("]", n))
}

// world is what the table needs: who attacks whom and their data.
type world struct {
	h *harness
	// attacker A (paired with accomplice C), victim V (paired with P),
	// admin, replay R (codes to replay), late L (an unpaired user with a
	// token), gone (a deleted account's token).
	A, C, V, P, admin, R, L user
	goneToken, revokedToken string
	// the attacker's own records (the fields rows poison them) and the
	// victim's (the ids rows aim at).
	aEvent, aMemory, aImage, aGroup, aKey string
	vEvent, vMemory, vImage, vGroup, vKey string
	vSession, vDevice, vNotification      string
	vAnswer, vConnection                  string
	// consumed and expiring secrets
	verifyCode, resetCode, resetToken string // R's, each used once already
	usedPairingCode, freshPairingCode string // C's (paired), R's (expires in 24 h)
	snap                              string // what nothing may change
	byRow                             bool   // snap is compared after every row (runFamily)
}

// hostileEnv lifts every limit that is not what a row tests (the JSON limit
// is 4 MiB here, so a body is never refused for its size before its fields).
var hostileEnv = []option{
	withEnv("TANDEM_RATE_LIMIT_IP", "100000000"), withEnv("TANDEM_IMAGES_RATE_LIMIT", "100000000"),
	withEnv("TANDEM_PAIRING_FAILS_USER", "100000000"), withEnv("TANDEM_PAIRING_FAILS_IP", "100000000"),
	withEnv("TANDEM_JSON_MAX_BYTES", "4194304"), withEnv("TANDEM_UPLOAD_MAX_BYTES", "1048576"),
	withEnv("TANDEM_ADMIN_EMAILS", "boss@x.io"), withEnv("TANDEM_REMINDER_INTERVAL", "1h"),
}

// TestWarmUpEveryJSONRoute runs alone, before the parallel tests: every
// JSON route once, its body decoded and its answer encoded, and the reads
// of the snapshot. Races were reported inside the standard library's type
// caches (encoding/json's, reflect's) on a type's first use by many
// goroutines at once, which parallel tests make common; none reproduced
// alone (BENCHMARKS.md, "The test loop"). With these caches filled first,
// the parallel tests meet the API's types warm.
func TestWarmUpEveryJSONRoute(t *testing.T) {
	h := newHarness(t, profile{name: "memory"}, hostileEnv...)
	w := newWorld(t, h)
	w.snap = w.snapshot(t)
	for _, rt := range w.jsonRoutes() {
		if p := w.limited(rt.path); p != nil {
			p(t)
		}
		r, err := h.send(h.request(rt.request(w.fill(rt.base))))
		if err != nil || r.Status != 200 {
			t.Fatalf("%s: %d %s %v", rt.name, r.Status, clip(r.Body), err)
		}
	}
	expect(t, h.get("/api/version-check?platform=ios&version=1.0.0", ""), 200, "")
}

// TestHostileInputs runs each family of rows in a world of its own, beside
// the others (a family's rows run one after another: each checks that it
// changed nothing), and the base bodies and expiry rows in one more.
func TestHostileInputs(t *testing.T) {
	parallel(t)
	for _, p := range profiles(t) {
		t.Run(p.name, func(t *testing.T) {
			parallel(t)
			least := 1500
			if p.sql != "" {
				least = 180 // the families a repository answers
			}
			var total atomic.Int64
			t.Cleanup(func() {
				if n := total.Load(); n < int64(least) {
					t.Errorf("only %d hostile rows", n)
				} else {
					t.Logf("%d hostile rows", n)
				}
			})
			for _, family := range hostileFamilies {
				if p.sql != "" && !family.anyRepo {
					continue
				}
				t.Run(family.name, func(t *testing.T) {
					parallel(t)
					total.Add(int64(runFamily(t, p, family.rows, family.anyRepo)))
				})
			}
			h := newHarness(t, p, hostileEnv...)
			w := newWorld(t, h)
			total.Add(int64(len(w.expiryRows())))
			// The rows mean something only if the bodies they poison are
			// accepted as they are: each route's base body gets a 200 (and SQL
			// metacharacters in free text are text, stored as sent).
			for _, rt := range w.jsonRoutes() {
				t.Run("base body accepted/"+rt.name, func(t *testing.T) {
					if p := w.limited(rt.path); p != nil {
						p(t)
					}
					r, err := h.send(h.request(rt.request(w.fill(rt.base))))
					if err != nil || r.Status != 200 {
						t.Fatalf("%d %s %v", r.Status, clip(r.Body), err)
					}
				})
			}
			for _, c := range []struct{ path, field string }{{eventsPath(w.A), "title"}, {memoriesPath(w.A), "title"}} {
				r := h.post(c.path, w.A.Token, map[string]any{"action": "create", c.field: sqlMeta, "startDate": "2025-06-20", "date": "2025-06-01"})
				if expect(t, r, 200, ""); r.JSON(t)[c.field] != sqlMeta {
					t.Errorf("%s: %s stored as %v", c.path, c.field, r.JSON(t)[c.field])
				}
			}
			w.snap = w.snapshot(t)
			for _, r := range w.expiryRows() {
				t.Run(r.name, func(t *testing.T) { w.run(t, r) })
			}
		})
	}
}

// run sends one row and checks its answer and that nothing changed.
// runFamily runs a family's rows on a new world and returns how many. A
// family a repository answers compares the stored data after every row. The
// others are refused before any repository is called, and a snapshot after
// each of their ~1,300 rows (four exports and four reads) was a third of the
// table's CPU: their stored data is compared once, after the last row, and
// on a difference the family runs again on a new world, row by row, to name
// the row.
func runFamily(t *testing.T, p profile, rows func(*world, *testing.T) []hostile, byRow bool) int {
	w := newWorld(t, newHarness(t, p, hostileEnv...))
	rs := rows(w, t)
	w.snap, w.byRow = w.snapshot(t), byRow
	for _, r := range rs {
		t.Run(r.name, func(t *testing.T) { w.run(t, r) })
	}
	if !byRow {
		if got := w.snapshot(t); got != w.snap {
			t.Errorf("a row changed stored data:\n%s\nthe family again, row by row:", firstDiff(w.snap, got))
			t.Run("row by row", func(t *testing.T) { runFamily(t, p, rows, true) })
		}
	}
	return len(rs)
}

func (w *world) run(t *testing.T, r hostile) {
	if r.prepare != nil {
		r.prepare(t)
	}
	var res response
	if r.raw != "" {
		res = rawExchange(t, w.h, r.raw+fmt.Sprintf("Content-Length: %d\r\n", len(r.rawBody)), bytes.NewReader(r.rawBody))
	} else {
		if r.req.Token == noAuth {
			r.req.Token = ""
		}
		hr := w.h.request(r.req)
		if r.noType {
			hr.Header.Del("Content-Type")
		}
		var err error
		if res, err = w.h.send(hr); err != nil {
			t.Fatalf("%s %s: %v", r.req.Method, r.req.Path, err)
		}
	}
	switch {
	case r.status != 0 && res.Status != r.status:
		t.Errorf("status %d, want %d: %s", res.Status, r.status, clip(res.Body))
	case res.Status < 400 || res.Status > 499:
		t.Errorf("status %d, want a 4xx: %s", res.Status, clip(res.Body))
	default:
		want := r.want
		if want == "" {
			want = errShape
		}
		expect(t, res, res.Status, want)
		if e := res.JSON(t); e["error"] != e["message"] {
			t.Errorf("error %q and message %q differ", e["error"], e["message"])
		}
	}
	if !w.byRow {
		return // runFamily compares after the last row
	}
	if got := w.snapshot(t); got != w.snap {
		t.Errorf("the request changed stored data:\n%s", firstDiff(w.snap, got))
		w.snap = got // report each change once
	}
}

func clip(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "..."
	}
	return string(b)
}

// firstDiff shows where two snapshots part.
func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-120)
	return "before: ..." + a[from:min(len(a), i+200)] + "\nafter:  ..." + b[from:min(len(b), i+200)]
}

// snapshot is everything a row could change that the API shows: four
// users' exports (timestamps included: the clock only moves where a row
// says, and exports hold no read times), every flag, every version policy.
func (w *world) snapshot(t *testing.T) string {
	t.Helper()
	reads := []req{}
	for _, u := range []user{w.A, w.C, w.V, w.P} {
		reads = append(reads, GET("/api/users/user/"+u.ID+"/export").by(u))
	}
	reads = append(reads, GET("/api/feature-flags?action=all").by(w.admin))
	for _, p := range []string{"ios", "android", "web"} {
		reads = append(reads, GET("/api/admin/version-policy/"+p).by(w.admin))
	}
	var b strings.Builder
	for i, r := range w.h.atOnce(reads...) { // read at once: nothing writes meanwhile
		if r.Status != 200 && r.Status != 404 {
			t.Fatalf("snapshot %s: %d %s", reads[i].Path, r.Status, clip(r.Body))
		}
		fmt.Fprintf(&b, "%s %d %s\n", reads[i].Path, r.Status, r.Body)
	}
	return b.String()
}

// newWorld signs everyone up and gives the attacker and the victim data.
func newWorld(t *testing.T, h *harness) *world {
	w := &world{h: h}
	w.A, w.C = h.newUser("attacker@x.io"), h.newUser("accomplice@x.io")
	w.V, w.P = h.newUser("victim@x.io"), h.newUser("partner@x.io")
	w.admin, w.L = h.newUser("boss@x.io"), h.newUser("late@x.io")
	w.usedPairingCode = h.generateCode(w.C)
	expect(t, h.submitCode(w.A, w.usedPairingCode), 200, "")
	expect(t, h.submitCode(w.C, h.generateCode(w.A)), 200, "")
	h.pair(w.V, w.P)

	// R: a verification code, a reset code and a reset token, each used once.
	r := h.post("/api/auth/signup/email", "", map[string]any{"email": "replay@x.io", "password": pw})
	expect(t, r, 200, "")
	w.R.ID = r.JSON(t)["userId"].(string)
	w.verifyCode = h.Mail.Code("replay@x.io")
	r = h.post("/api/auth/signup/email", "", map[string]any{"userId": w.R.ID, "verificationCode": w.verifyCode})
	expect(t, r, 200, "")
	expect(t, h.post("/api/auth/reset", "", map[string]any{"email": "replay@x.io"}), 200, "")
	w.resetCode = h.Mail.Code("replay@x.io")
	r = h.post("/api/auth/reset", "", map[string]any{"userId": w.R.ID, "code": w.resetCode})
	expect(t, r, 200, "")
	w.resetToken = r.JSON(t)["resetToken"].(string)
	r = h.post("/api/auth/reset", "", map[string]any{"userId": w.R.ID, "newPassword": "another-horse-2", "resetToken": w.resetToken})
	expect(t, r, 200, "")
	w.R.Token = r.JSON(t)["token"].(string)
	w.freshPairingCode = h.generateCode(w.R)

	// a revoked token of the attacker, and the token of a deleted account
	_, w.revokedToken = h.signUp("revoked@x.io")
	expect(t, h.post("/api/auth/logout", w.revokedToken, nil), 200, "")
	gone := h.newUser("gone@x.io")
	expect(t, h.do(req{Method: "DELETE", Path: "/api/users/user/" + gone.ID, Token: gone.Token}), 200, "")
	w.goneToken = gone.Token

	// the attacker's and the victim's records
	w.aEvent, w.aMemory, w.aImage, w.aGroup, w.aKey = w.records(t, w.A)
	w.vEvent, w.vMemory, w.vImage, w.vGroup, w.vKey = w.records(t, w.V)
	sessions := h.get(sessionsPath(w.V), w.V.Token).JSON(t)["sessions"].([]any)
	w.vSession = sessions[0].(map[string]any)["id"].(string)
	r = h.post("/api/users/user/"+w.V.ID+"/devices", w.V.Token, map[string]any{"token": "ExponentPushToken[victim]", "platform": "ios", "provider": "expo"})
	expect(t, r, 200, "")
	w.vDevice = r.JSON(t)["deviceId"].(string)
	expect(t, h.post("/api/users/user/"+w.V.ID+"/send-test-notification", w.V.Token, map[string]any{"title": "t", "message": "m", "category": "questions"}), 200, "")
	inbox := h.get("/api/users/user/"+w.V.ID+"/notifications", w.V.Token).JSON(t)["notifications"].([]any)
	w.vNotification = inbox[0].(map[string]any)["id"].(string)
	expect(t, h.post("/api/users/user/"+w.V.ID+"/feedback", w.V.Token, map[string]any{"feedbackMessage": "victim's feedback"}), 200, "")
	expect(t, h.keyed("POST", "/api/messages/send", w.V, map[string]any{"body": "victim's message"}), 200, "")
	r = h.post(dqPath(w.V), w.V.Token, map[string]any{"action": "answer", "text": "victim's answer"})
	expect(t, r, 200, "")
	conv := r.JSON(t)["conversation"].([]any)
	w.vAnswer = conv[len(conv)-1].(map[string]any)["id"].(string)
	expect(t, h.post(dqPath(w.A), w.A.Token, map[string]any{"action": "answer", "text": "attacker's answer"}), 200, "")
	expect(t, h.post(relationshipPath(w.V), w.V.Token, map[string]any{"action": "start", "date": "2024-02-14"}), 200, "")
	expect(t, h.post(premiumPath(w.V), w.V.Token, map[string]any{"action": "create", "plan": "9.99",
		"startDate": h.Clock.Now().UnixMilli(), "endDate": h.Clock.Now().AddDate(1, 0, 0).UnixMilli(), "platform": "ios"}), 200, "")
	w.vConnection = "victim-code-1"
	expect(t, h.connCreate(w.L, w.vConnection), 200, "") // a free user's code: the link rows aim at it
	expect(t, h.post("/api/feature-flags", w.admin.Token, map[string]any{"action": "create", "key": "hostile_flag", "name": "Hostile",
		"enabledForUserIds": []string{w.V.ID}}), 200, "")
	expect(t, h.do(req{Method: "PUT", Path: "/api/admin/version-policy/ios", Token: w.admin.Token, Body: map[string]any{
		"minRequiredVersion": "1.0.0", "recommendedVersion": "1.2.0", "latestVersion": "1.3.0",
		"downloadUrl": "https://apps.apple.com/app/id1", "updateMessage": "Please update"}}), 200, "")
	return w
}

// records gives u an event, a memory and an uploaded image; it returns
// their ids, the image's group and key.
func (w *world) records(t *testing.T, u user) (event, memory, image, group, key string) {
	h := w.h
	r := h.post(eventsPath(u), u.Token, map[string]any{"action": "create", "title": u.ID[:8] + "'s event", "startDate": "2025-06-20"})
	expect(t, r, 200, "")
	event = r.JSON(t)["id"].(string)
	r = h.post(memoriesPath(u), u.Token, map[string]any{"action": "create", "title": u.ID[:8] + "'s memory", "date": "2025-06-01"})
	expect(t, r, 200, "")
	memory = r.JSON(t)["id"].(string)
	up := h.mustUpload(u, filePart("a.jpg", "image/jpeg", jpegFile(t)), filePart("b.jpg", "image/jpeg", jpegFile(t)))
	imgs := jsonArrayOfStrings(t, h.get(imagesPath(u), u.Token))
	var first map[string]any
	_ = json.Unmarshal([]byte(imgs[len(imgs)-1]), &first)
	return event, memory, first["_id"].(string), up.GroupID, up.Files[0].Data.Key
}

func jsonArrayOfStrings(t *testing.T, r response) []string {
	t.Helper()
	var out []string
	if err := json.Unmarshal(r.Body, &out); err != nil {
		t.Fatalf("not an array of strings: %s", r.Body)
	}
	return out
}

// ---- the rows ----

// hostileFamilies are the rows by family. Every family runs on the memory
// profile. On a SQL store only the families a repository answers run (an
// id, a cursor, a file key, a token, a code looked up; an upload stored):
// the router, the JSON binding or a field's validation refuses the others
// before any repository is called, so the store cannot change their
// answer, and running them again on SQLite and MySQL tripled the package's
// longest test.
var hostileFamilies = []struct {
	name    string
	rows    func(w *world, t *testing.T) []hostile
	anyRepo bool // reaches a repository: runs on every profile
}{
	{"poisoned fields 1 of 4", poisonedFields(0, 4), false},
	{"poisoned fields 2 of 4", poisonedFields(1, 4), false},
	{"poisoned fields 3 of 4", poisonedFields(2, 4), false},
	{"poisoned fields 4 of 4", poisonedFields(3, 4), false},
	{"broken bodies", func(w *world, _ *testing.T) []hostile { return w.bodyRows() }, false},
	{"routes", (*world).routeRows, false},
	{"cursors", func(w *world, _ *testing.T) []hostile { return w.cursorRows() }, true},
	{"victim's ids", func(w *world, _ *testing.T) []hostile { return w.idRows() }, true},
	{"file keys", (*world).fileRows, true},
	{"headers", func(w *world, _ *testing.T) []hostile { return w.headerRows() }, true},
	{"uploads", (*world).uploadRows, true},
	{"replayed codes", func(w *world, _ *testing.T) []hostile { return w.codeRows() }, true},
}

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

// The routes of /openapi.json, filled for one user.
type apiRoute struct{ method, path string }

func documentedRoutes(t *testing.T) []apiRoute {
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(httpapi.OpenAPI, &doc); err != nil {
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

// headerRows send, raw, a request the attacker may make (an event of their
// own) with a header section no two parsers read alike.
func (w *world) headerRows() []hostile {
	body := []byte(`{"action":"create","title":"smuggled","startDate":"2025-06-20"}`)
	line := "POST /api/users/user/" + w.A.ID + "/events HTTP/1.1\r\nHost: x\r\n"
	auth := "Authorization: Bearer " + w.A.Token + "\r\n"
	ct := "Content-Type: application/json\r\n"
	var rows []hostile
	for _, c := range []struct{ name, head string }{
		{"bare CR in a value", line + auth + ct + "X-Note: a\rb\r\n"},
		{"NUL in a value", line + auth + ct + "X-Note: a\x00b\r\n"},
		{"obs-fold line", line + auth + ct + "X-Note: a\r\n folded\r\n"},
		{"folded Authorization", line + "Authorization: Bearer\r\n " + w.A.Token + "\r\n" + ct},
		{"space before the colon", line + auth + ct + "X-Note : a\r\n"},
		{"name of non-token characters", line + auth + ct + "X(Note): a\r\n"},
		{"bare CR splitting a header", line + auth[:len(auth)-2] + "\rX-API-Key: test-service-key\r\n" + ct},
		{"two Content-Types", line + auth + "Content-Type: text/plain\r\n" + ct},
		{"two Authorizations", line + auth + "Authorization: Bearer " + forgedTok + "\r\n" + ct},
		{"two Hosts", line + "Host: evil.example\r\n" + auth + ct},
	} {
		rows = append(rows, hostile{scenario: scenario{name: "header injection/" + c.name}, raw: c.head, rawBody: body})
	}
	return rows
}

// uploadRows are multipart bodies the upload must refuse whole.
func (w *world) uploadRows(t *testing.T) []hostile {
	path := imagesPath(w.A)
	jpeg := jpegFile(t)
	mp := func(name string, status int, parts ...part) hostile {
		body, ct := multipartBody(t, parts...)
		return hostile{scenario: scenario{name: "upload/" + name, status: status,
			req: req{Method: "POST", Path: path, Token: w.A.Token, Body: body, Headers: map[string]string{"Content-Type": ct}}}}
	}
	five := []part{}
	for i := range 5 {
		five = append(five, filePart(fmt.Sprintf("%d.jpg", i), "image/jpeg", jpeg))
	}
	fields := []part{filePart("a.jpg", "image/jpeg", jpeg)}
	for i := range 9 {
		fields = append(fields, part{name: fmt.Sprintf("f%d", i), data: []byte(sqlMeta)})
	}
	cut, cutType := multipartBody(t, filePart("a.jpg", "image/jpeg", jpeg))
	cut = cut[:bytes.LastIndex(cut, []byte("\r\n--"))] // the file, without its closing boundary
	rows := []hostile{
		mp("five files", 400, five...),
		mp("a file over the limit", 413, filePart("big.jpg", "image/jpeg", append(jpeg, make([]byte, 1<<20)...))),
		mp("a GIF", 415, filePart("a.gif", "image/gif", gifFile(t))),
		mp("HTML declared as JPEG", 415, filePart("x.jpg", "image/jpeg", []byte("<html><script>alert(1)</script></html>"))),
		mp("a part named photo", 400, part{name: "photo", filename: "a.jpg", contentType: "image/jpeg", data: jpeg}),
		mp("nine fields", 400, fields...),
		mp("no file", 400, part{name: "note", data: []byte("x")}),
		mp("SQL and traversal in the file name, not an image", 415, filePart("../../x' OR 1=1;--.jpg", "image/jpeg", []byte(sqlMeta))),
		{scenario: scenario{name: "upload/cut before its closing boundary", status: 400,
			req: req{Method: "POST", Path: path, Token: w.A.Token, Body: cut, Headers: map[string]string{"Content-Type": cutType}}}},
		{scenario: scenario{name: "upload/no boundary", status: 400,
			req: req{Method: "POST", Path: path, Token: w.A.Token, Body: cut, Headers: map[string]string{"Content-Type": "multipart/form-data"}}}},
		{scenario: scenario{name: "upload/as JSON", status: 415,
			req: req{Method: "POST", Path: path, Token: w.A.Token, Body: map[string]any{"file": base64.StdEncoding.EncodeToString(jpeg)}}}},
		{scenario: scenario{name: "upload/gzip", status: 415,
			req: req{Method: "POST", Path: path, Token: w.A.Token, Body: cut, Headers: map[string]string{"Content-Type": cutType, "Content-Encoding": "gzip"}}}},
	}
	return rows
}

// codeRows replay codes and tokens that were used once already, and guess.
func (w *world) codeRows() []hostile {
	R := w.R.ID
	c := func(name string, q req, status int, want string) hostile {
		return hostile{scenario: scenario{name: "replayed code/" + name, req: q.anonymous(), status: status, want: want}}
	}
	invalidCode := errBody("invalid_code", "invalid or expired code")
	return []hostile{
		c("verification code", POST("/api/auth/signup/email", map[string]any{"userId": R, "verificationCode": w.verifyCode}), 400, invalidCode),
		c("reset code", POST("/api/auth/reset", map[string]any{"userId": R, "code": w.resetCode}), 400, invalidCode),
		c("reset token", POST("/api/auth/reset", map[string]any{"userId": R, "newPassword": "third-horse-3", "resetToken": w.resetToken}), 400, ""),
		c("reset code as the update's proof", POST("/api/auth/reset", map[string]any{"userId": R, "newPassword": "third-horse-3", "code": w.resetCode}), 400, ""),
		c("reset token for another user", POST("/api/auth/reset", map[string]any{"userId": w.V.ID, "newPassword": "third-horse-3", "resetToken": w.resetToken}), 400, ""),
		c("update without proof", POST("/api/auth/reset", map[string]any{"userId": w.V.ID, "newPassword": "third-horse-3"}), 400, ""),
		c("verification code of another user", POST("/api/auth/signup/email", map[string]any{"userId": w.V.ID, "verificationCode": w.verifyCode}), 400, invalidCode),
		c("reset code padded", POST("/api/auth/reset", map[string]any{"userId": R, "code": w.resetCode + "0"}), 400, invalidCode),
		{scenario: scenario{name: "replayed code/pairing code already used",
			req: POST(pairingPath(w.L), map[string]any{"action": "submit-code", "targetCode": w.usedPairingCode}).by(w.L)}},
		{scenario: scenario{name: "replayed code/own pairing code", status: 400,
			req: POST(pairingPath(w.R), map[string]any{"action": "submit-code", "targetCode": w.freshPairingCode}).by(w.R)}},
		{scenario: scenario{name: "replayed code/login with the password a reset replaced", status: 401,
			req: POST("/api/auth/login/email", map[string]any{"email": "replay@x.io", "password": pw}).anonymous()}},
	}
}

// expiryRows move the clock: a pairing code a day old, then every token
// past its 90 days. They run last.
func (w *world) expiryRows() []hostile {
	late := hostile{scenario: scenario{name: "expired/pairing code after 25 hours", status: 400,
		want: errBody("invalid_pairing_code", "invalid or expired pairing code"),
		req:  POST(pairingPath(w.L), map[string]any{"action": "submit-code", "targetCode": w.freshPairingCode}).by(w.L)},
		prepare: func(*testing.T) { w.h.Clock.Advance(25 * time.Hour) }}
	var rows = []hostile{late}
	past := func(t *testing.T) {
		w.h.Clock.Advance(91 * 24 * time.Hour) // the cache checks expiry against the clock too
		w.relogin(t)
	}
	for i, q := range []req{
		POST(eventsPath(w.A), map[string]any{"action": "create", "title": "late", "startDate": "2025-06-20"}).by(w.A),
		GET("/api/users/user/" + w.A.ID + "/export").by(w.A),
		POST("/api/messages/send", map[string]any{"body": "late"}).withKey().by(w.A),
	} {
		r := hostile{scenario: scenario{name: "expired/token after 91 days " + q.Method + " " + q.Path, req: q, status: 401,
			want: errBody("unauthorized", "missing, invalid or expired token")}}
		if i == 0 {
			r.prepare = past
		}
		rows = append(rows, r)
	}
	return rows
}

// relogin gives the users whose exports are compared new tokens.
func (w *world) relogin(t *testing.T) {
	for _, u := range []*user{&w.A, &w.C, &w.V, &w.P, &w.admin} {
		email := map[string]string{w.A.ID: "attacker@x.io", w.C.ID: "accomplice@x.io", w.V.ID: "victim@x.io",
			w.P.ID: "partner@x.io", w.admin.ID: "boss@x.io"}[u.ID]
		r, err := w.h.send(w.h.request(POST("/api/auth/login/email", map[string]any{"email": email, "password": pw})))
		if err != nil || r.Status != http.StatusOK {
			t.Fatalf("login %s: %d %s %v", email, r.Status, r.Body, err)
		}
		u.Token = r.JSON(t)["token"].(string)
	}
}
