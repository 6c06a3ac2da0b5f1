package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
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
