package tests

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Partner connections (X-API-Key + bearer) and pairing v1.2, end to end.

func pairingPath(u user) string { return "/api/users/user/" + u.ID + "/pairing" }

func (h *harness) pairingStatus(u user) response {
	h.t.Helper()
	return h.get(pairingPath(u), u.Token)
}

func (h *harness) generateCode(u user) string {
	h.t.Helper()
	r := h.post(pairingPath(u), u.Token, map[string]any{"action": "generate-code"})
	expect(h.t, r, 200, `{"code":"<string>","expiresAt":"<number>"}`)
	return r.JSON(h.t)["code"].(string)
}

func (h *harness) submitCode(u user, code string) response {
	h.t.Helper()
	return h.post(pairingPath(u), u.Token, map[string]any{"action": "submit-code", "targetCode": code})
}

func (h *harness) connection(u user) response {
	h.t.Helper()
	return h.keyed("GET", "/api/partnerConnections/get/"+u.ID, u, nil)
}

func (h *harness) connCreate(u user, code string) response {
	h.t.Helper()
	return h.keyed("POST", "/api/partnerConnections/create", u, map[string]any{"userId": u.ID, "connectionCode": code})
}

func (h *harness) connLink(u user, code string) response {
	h.t.Helper()
	return h.keyed("POST", "/api/partnerConnections/link", u, map[string]any{"userId": u.ID, "connectionCode": code})
}

func (h *harness) connUnlink(u user) response {
	h.t.Helper()
	return h.keyed("POST", "/api/partnerConnections/unlink", u, map[string]any{"userId": u.ID})
}

// pairByCodes pairs a and b through the pairing flow.
func (h *harness) pairByCodes(a, b user) {
	h.t.Helper()
	ca, cb := h.generateCode(a), h.generateCode(b)
	expect(h.t, h.submitCode(a, cb), 200, "")
	expect(h.t, h.submitCode(b, ca), 200, `{"state":"connected","message":"<string>","partnerId":"`+a.ID+`","myCode":"`+cb+`"}`)
}

// pairByLink makes a and b partners through the partner-connection flow:
// a creates "pair-<a.ID>", b links with it.
func (h *harness) pairByLink(a, b user) {
	h.t.Helper()
	code := "pair-" + a.ID
	expect(h.t, h.connCreate(a, code), 200, "")
	expect(h.t, h.connLink(b, code), 200, "")
}

// statusJSON renders the expected GET .../pairing body; "" is null.
func statusJSON(state, myCode, expiresAt, partner, incoming, outgoing string, action bool) string {
	if expiresAt == "" {
		expiresAt = "null"
	}
	act := "false"
	if action {
		act = "true"
	}
	return `{"state":"` + state + `","myCode":` + nullable(myCode) + `,"expiresAt":` + expiresAt + `,"partnerId":` + nullable(partner) +
		`,"incomingFrom":` + nullable(incoming) + `,"outgoingTo":` + nullable(outgoing) + `,"actionRequired":` + act + `}`
}

func unpairedStatus() string { return statusJSON("unpaired", "", "", "", "", "", false) }

func connectionBody(u user, partner, code string) string {
	p := "null"
	if partner != "" {
		p = `"` + partner + `"`
	}
	return `{"status":"success","data":{"userId":"` + u.ID + `","partnerId":` + p + `,"connectionCode":"` + code +
		`","expiresAt":"<number>"}}`
}

var pairingCodeRe = regexp.MustCompile(`^[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{6}$`)

// TestPairingStateTable walks every row of the spec's pairing table, reading
// each stored effect back through GET .../pairing.
func TestPairingStateTable(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		a, b := h.newUser("a@x.io"), h.newUser("b@x.io")
		expiry := ms(h.Clock.Now().Add(24 * time.Hour))
		expect(t, h.pairingStatus(a), 200, unpairedStatus())

		// unpaired + generate-code: a code that expires in 24 h, in milliseconds
		r := h.post(pairingPath(a), a.Token, map[string]any{"action": "generate-code"})
		expect(t, r, 200, `{"code":"<string>","expiresAt":`+expiry+`}`)
		old := r.JSON(t)["code"].(string)
		if !pairingCodeRe.MatchString(old) {
			t.Fatalf("code %q", old)
		}
		expect(t, h.pairingStatus(a), 200, statusJSON("unpaired", old, expiry, "", "", "", false))
		ca := h.generateCode(a) // generating again replaces the code
		for ca == old {
			ca = h.generateCode(a)
		}
		expect(t, h.pairingStatus(a), 200, statusJSON("unpaired", ca, expiry, "", "", "", false))
		expect(t, h.submitCode(b, old), 400, errBody("invalid_pairing_code", "invalid or expired pairing code"))

		// unpaired + submit-code, the partner has not confirmed: pending
		cb := h.generateCode(b)
		expect(t, h.submitCode(a, cb), 200,
			`{"status":"pending","message":"<string>","partnerId":"`+b.ID+`","actionRequired":false}`)
		expect(t, h.pairingStatus(a), 200, statusJSON("pending", ca, expiry, "", "", b.ID, false))
		expect(t, h.pairingStatus(b), 200, statusJSON("pending", cb, expiry, "", a.ID, "", true))

		// pending + submit-code from the other partner (mutual): connected
		expect(t, h.submitCode(b, " "+strings.ToLower(ca)+" "), 200,
			`{"state":"connected","message":"<string>","partnerId":"`+a.ID+`","myCode":"`+cb+`"}`)
		expect(t, h.pairingStatus(a), 200, statusJSON("connected", "", "", b.ID, "", "", false))
		expect(t, h.pairingStatus(b), 200, statusJSON("connected", "", "", a.ID, "", "", false))
		// paired by pairing code: the connection shows the partner and no code
		expect(t, h.connection(a), 200, `{"status":"success","data":{"userId":"`+a.ID+`","partnerId":"`+b.ID+`","connectionCode":null,"expiresAt":null}}`)

		// any + submit-code with an invalid or expired code: refused, unchanged
		c, d := h.newUser("c@x.io"), h.newUser("d@x.io")
		cd := h.generateCode(d)
		h.Clock.Advance(24 * time.Hour)
		expect(t, h.submitCode(c, cd), 400, errBody("invalid_pairing_code", "invalid or expired pairing code"))
		expect(t, h.pairingStatus(c), 200, unpairedStatus())
		expect(t, h.pairingStatus(d), 200, unpairedStatus()) // the expired code is not shown

		// connected + unpair: both unpaired, every code and request cleared
		expect(t, h.post(pairingPath(b)+"/unpair", b.Token, nil), 200, `{"success":true}`)
		expect(t, h.pairingStatus(a), 200, unpairedStatus())
		expect(t, h.pairingStatus(b), 200, unpairedStatus())
		expect(t, h.post(pairingPath(a)+"/unpair", a.Token, nil), 409, errBody("not_paired", "not paired"))
	})
}

// TestPairingErrors: every error of the pairing routes, with nothing stored.
func TestPairingErrors(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		a, b, p1, p2 := h.newUser("a@x.io"), h.newUser("b@x.io"), h.newUser("p1@x.io"), h.newUser("p2@x.io")
		cb := h.generateCode(b)
		ca := h.generateCode(a)
		h.pair(p1, p2)
		h.Clock.Advance(time.Hour)
		cx := h.generateCode(h.newUser("x@x.io")) // expires an hour after cb and ca

		invalid := errBody("invalid_pairing_code", "invalid or expired pairing code")
		paired := errBody("already_paired", "you are already paired")
		post := func(u user, body any) req { return POST(pairingPath(u), body).by(u) }
		submit := func(u user, code string) req {
			return post(u, map[string]any{"action": "submit-code", "targetCode": code})
		}
		generate := map[string]any{"action": "generate-code"}
		expiry := ms(h.Clock.Now().Add(23 * time.Hour))
		unchanged := func(t *testing.T, h *harness) {
			expect(t, h.pairingStatus(a), 200, statusJSON("unpaired", ca, expiry, "", "", "", false))
			expect(t, h.pairingStatus(b), 200, statusJSON("unpaired", cb, expiry, "", "", "", false))
			expect(t, h.pairingStatus(p1), 200, statusJSON("connected", "", "", p2.ID, "", "", false))
		}
		runScenarios(t, h, afterEach(unchanged, []scenario{
			{name: "no token", req: POST(pairingPath(a), generate), status: 401, want: errNoToken},
			{name: "someone else's status", req: GET(pairingPath(b)).by(a), status: 403, want: errNotYours},
			{name: "someone else's code", req: POST(pairingPath(b), generate).by(a), status: 403, want: errNotYours},
			{name: "someone else's unpair", req: POST(pairingPath(p1)+"/unpair", nil).by(a), status: 403, want: errNotYours},
			{name: "missing action", req: post(a, map[string]any{"targetCode": cb}), status: 400,
				want: errInvalid("action is required: generate-code, submit-code")},
			{name: "unknown action", req: post(a, map[string]any{"action": "accept"}), status: 400,
				want: errInvalid(`unknown action \"accept\": use generate-code, submit-code`)},
			{name: "missing targetCode", req: post(a, map[string]any{"action": "submit-code"}), status: 400,
				want: errInvalid("targetCode is required")},
			{name: "targetCode not a string", req: post(a, `{"action":"submit-code","targetCode":5}`), status: 400,
				want: errInvalid("field targetCode must be a string")},
			{name: "malformed JSON", req: post(a, `{"action":`), status: 400, want: errInvalid("malformed JSON")},
			{name: "unknown code", req: submit(a, "ZZZZZZ"), status: 400, want: invalid},
			{name: "malformed code", req: submit(a, "O0I1"), status: 400, want: invalid},
			{name: "empty code", req: submit(a, ""), status: 400, want: invalid},
			{name: "own code", req: submit(a, ca), status: 400, want: invalid},
			{name: "caller paired, valid code", req: submit(p1, cx), status: 409, want: paired},
			{name: "caller paired beats an invalid code", req: submit(p1, "ZZZZZZ"), status: 409, want: paired},
			{name: "generate-code while paired", req: post(p2, generate), status: 409, want: paired},
			{name: "unpair while unpaired", req: POST(pairingPath(a)+"/unpair", nil).by(a), status: 409, want: errBody("not_paired", "not paired")},
		}))

		// expiry: 24 h after generation the code is dead
		h.Clock.Advance(23 * time.Hour)
		expect(t, h.submitCode(a, cb), 400, invalid)
		expect(t, h.submitCode(a, cx), 200, "") // still good: an hour younger
		// "owner already paired" (409) needs a code whose owner paired meanwhile; pairing
		// clears every code of both partners, so it is covered by the unit tests.
	})
}

// TestPendingRequestsOverHTTP: one outgoing request per user, newest incoming shown.
func TestPendingRequestsOverHTTP(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		a, b, c := h.newUser("a@x.io"), h.newUser("b@x.io"), h.newUser("c@x.io")
		ca, cb, cc := h.generateCode(a), h.generateCode(b), h.generateCode(c)
		expiry := ms(h.Clock.Now().Add(24 * time.Hour))
		expect(t, h.submitCode(a, cb), 200, "")
		expect(t, h.submitCode(a, cc), 200, "") // replaces the request to b
		expect(t, h.pairingStatus(b), 200, statusJSON("unpaired", cb, expiry, "", "", "", false))
		expect(t, h.pairingStatus(c), 200, statusJSON("pending", cc, expiry, "", a.ID, "", true))
		h.Clock.Advance(time.Minute)
		expect(t, h.submitCode(b, cc), 200, "")
		expect(t, h.pairingStatus(c), 200, statusJSON("pending", cc, expiry, "", b.ID, "", true)) // newest first
		expect(t, h.submitCode(c, ca), 200, `{"state":"connected","message":"<string>","partnerId":"`+a.ID+`","myCode":"`+cc+`"}`)
		expect(t, h.pairingStatus(b), 200, statusJSON("unpaired", cb, expiry, "", "", "", false)) // b's dead request is gone
		expect(t, h.submitCode(b, cc), 400, errBody("invalid_pairing_code", "invalid or expired pairing code"))
	})
}

// TestPartnerConnectionTable walks the spec's connection table with the
// stored effect read back through GET.
func TestPartnerConnectionTable(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		a, b := h.newUser("a@x.io"), h.newUser("b@x.io")
		expect(t, h.connection(a), 404, errBody("not_found", "no partner connection"))

		// none + create: connection exists
		week := ms(h.Clock.Now().Add(7 * 24 * time.Hour))
		expect(t, h.connCreate(a, "our-code_1"), 200,
			`{"status":"success","data":{"connectionId":"<string>","connectionCode":"our-code_1","expiresAt":`+week+`}}`)
		expect(t, h.connection(a), 200, `{"status":"success","data":{"userId":"`+a.ID+
			`","partnerId":null,"connectionCode":"our-code_1","expiresAt":`+week+`}}`)

		// create again replaces the caller's own code
		first := h.connCreate(a, "Our-Code-7qx").JSON(t)["data"].(map[string]any)["connectionId"]
		expect(t, h.connection(a), 200, connectionBody(a, "", "Our-Code-7qx"))
		expect(t, h.connLink(b, "our-code_1"), 404, errBody("not_found", "connection code not found"))
		if first == "" {
			t.Fatal("no connectionId")
		}

		// connection exists + link: linked, partnerId of the first user; the
		// code is found in any case, and shown as its owner spelled it
		expect(t, h.connLink(b, "our-CODE-7QX"), 200, `{"status":"success","data":{"partnerId":"`+a.ID+`"}}`)
		expect(t, h.connection(a), 200, connectionBody(a, b.ID, "Our-Code-7qx"))
		expect(t, h.connection(b), 200, connectionBody(b, a.ID, "Our-Code-7qx"))
		expect(t, h.pairingStatus(b), 200, statusJSON("connected", "", "", a.ID, "", "", false))

		// linked + unlink: unlinked
		expect(t, h.connUnlink(b), 200, `{"status":"success","data":{"success":true}}`)
		expect(t, h.connection(a), 200, connectionBody(a, "", "Our-Code-7qx"))
		expect(t, h.connection(b), 404, errBody("not_found", "no partner connection"))
		expect(t, h.pairingStatus(a), 200, unpairedStatus())
		expect(t, h.connUnlink(b), 409, errBody("not_paired", "not paired"))
		expect(t, h.connLink(b, "Our-Code-7qx"), 200, "") // the code links again
	})
}

// TestPartnerConnectionErrors: every error of the connection routes, with
// nothing stored.
func TestPartnerConnectionErrors(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		a, b, p1, p2 := h.newUser("a@x.io"), h.newUser("b@x.io"), h.newUser("p1@x.io"), h.newUser("p2@x.io")
		expect(t, h.connCreate(a, "kx7-code-aaa"), 200, "")
		h.pairByLink(p1, p2) // p1 owns "pair-<p1>"
		ownerCode := "pair-" + p1.ID

		body := func(u user, code string) map[string]any {
			return map[string]any{"userId": u.ID, "connectionCode": code}
		}
		conn := func(u user, route string, body any) req {
			return POST("/api/partnerConnections/"+route, body).withKey().by(u)
		}
		get := func(u, of user) req { return GET("/api/partnerConnections/get/" + of.ID).withKey().by(u) }
		badCode := errInvalid("connectionCode must be 8 to 64 characters of A-Z, a-z, 0-9, _ and -, unique ignoring case")
		badLinkCode := errInvalid("connectionCode must be 4 to 64 characters of A-Z, a-z, 0-9, _ and -")
		badKey := errBadKey
		paired := errBody("already_paired", "you are already paired")
		taken := errBody("conflict", "connection code already taken")
		unchanged := func(t *testing.T, h *harness) {
			expect(t, h.connection(a), 200, connectionBody(a, "", "kx7-code-aaa"))
			expect(t, h.connection(b), 404, "")
			expect(t, h.connection(p1), 200, connectionBody(p1, p2.ID, ownerCode))
			expect(t, h.connection(p2), 200, connectionBody(p2, p1.ID, ownerCode))
			expect(t, h.pairingStatus(b), 200, unpairedStatus())
		}
		runScenarios(t, h, afterEach(unchanged, []scenario{
			{name: "no X-API-Key", req: POST("/api/partnerConnections/create", body(b, "kx7-code-bbb")).by(b), status: 401, want: badKey},
			{name: "wrong X-API-Key", req: get(a, a).with("X-API-Key", "nope"), status: 401, want: badKey},
			{name: "X-API-Key without a token", req: POST("/api/partnerConnections/link", body(b, "kx7-code-aaa")).withKey(), status: 401,
				want: errNoToken},
			{name: "someone else's userId", req: conn(b, "create", body(a, "kx7-code-bbb")), status: 403, want: errNotYours},
			{name: "someone else's connection", req: get(b, a), status: 403, want: errNotYours},
			{name: "someone else's unlink", req: conn(b, "unlink", map[string]any{"userId": p1.ID}), status: 403, want: errNotYours},
			{name: "missing userId", req: conn(b, "create", map[string]any{"connectionCode": "kx7-code-bbb"}), status: 400,
				want: errInvalid("userId is required")},
			{name: "malformed JSON", req: conn(b, "create", `{"userId":`), status: 400, want: errInvalid("malformed JSON")},
			{name: "code of 3", req: conn(b, "create", body(b, "abc")), status: 400, want: badCode},
			{name: "code of 7", req: conn(b, "create", body(b, "abcdefg")), status: 400, want: badCode},
			{name: "code of 65", req: conn(b, "create", body(b, strings.Repeat("c", 65))), status: 400, want: badCode},
			{name: "code with a space", req: conn(b, "create", body(b, "code b")), status: 400, want: badCode},
			{name: "a common password", req: conn(b, "create", body(b, "password")), status: 400,
				want: errInvalid("connectionCode is too easy to guess: it contains a common password")},
			{name: "code taken", req: conn(b, "create", body(b, "kx7-code-aaa")), status: 409, want: taken},
			{name: "code taken in another case", req: conn(b, "create", body(b, "KX7-CODE-aaa")), status: 409, want: taken},
			{name: "link: malformed code", req: conn(b, "link", body(b, "a/b")), status: 400, want: badLinkCode},
			{name: "link: unknown code", req: conn(b, "link", body(b, "nobody-has-it")), status: 404,
				want: errBody("not_found", "connection code not found")},
			{name: "link: own code", req: conn(a, "link", body(a, "kx7-code-aaa")), status: 400,
				want: errInvalid("you cannot link with your own connection code")},
			{name: "link: caller already paired", req: conn(p2, "link", body(p2, "kx7-code-aaa")), status: 409, want: paired},
			{name: "link: caller paired beats an unknown code", req: conn(p2, "link", body(p2, "nobody-has-it")), status: 409, want: paired},
			{name: "link: owner already paired", req: conn(b, "link", body(b, ownerCode)), status: 409,
				want: errBody("already_paired", "that user is already paired")},
			{name: "unlink while unpaired", req: conn(a, "unlink", map[string]any{"userId": a.ID}), status: 409,
				want: errBody("not_paired", "not paired")},
			{name: "get without a connection", req: get(b, b), status: 404, want: errBody("not_found", "no partner connection")},
		}))
	})
}

// TestOnePartnershipWhicheverFlow: the flows share the one partnership.
func TestOnePartnershipWhicheverFlow(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		a, b, c := h.newUser("a@x.io"), h.newUser("b@x.io"), h.newUser("c@x.io")
		expect(t, h.connCreate(c, "kx7-code-ccc"), 200, "")

		// paired by codes: no link, ended by unlink
		h.pairByCodes(a, b)
		expect(t, h.connLink(a, "kx7-code-ccc"), 409, errBody("already_paired", "you are already paired"))
		expect(t, h.connection(c), 200, connectionBody(c, "", "kx7-code-ccc"))
		expect(t, h.connUnlink(a), 200, "")
		expect(t, h.pairingStatus(b), 200, unpairedStatus())

		// paired by link: no pairing code, ended by unpair
		h.pairByLink(a, b)
		expect(t, h.post(pairingPath(a), a.Token, map[string]any{"action": "generate-code"}), 409,
			errBody("already_paired", "you are already paired"))
		cc := h.generateCode(c)
		expect(t, h.submitCode(b, cc), 409, errBody("already_paired", "you are already paired"))
		expect(t, h.connLink(c, "pair-"+a.ID), 409, errBody("already_paired", "that user is already paired"))
		expect(t, h.post(pairingPath(b)+"/unpair", b.Token, nil), 200, `{"success":true}`)
		expect(t, h.connection(a), 200, connectionBody(a, "", "pair-"+a.ID))
		expect(t, h.connection(b), 404, "")
	})
}

// TestAccountDeletionEndsThePartnership: deleting an account ends the
// partnership for the partner and frees the user's codes; export shows them.
func TestAccountDeletionEndsThePartnership(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		a, b, c := h.newUser("a@x.io"), h.newUser("b@x.io"), h.newUser("c@x.io")
		h.pairByLink(a, b)
		r := h.get("/api/users/user/"+a.ID+"/export", a.Token)
		expect(t, r, 200, "")
		var export struct {
			Data map[string]json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(r.Body, &export); err != nil {
			t.Fatal(err)
		}
		want := `{"connectionCode":"pair-` + a.ID + `","pairingCode":null,"partnerId":"` + b.ID + `"}`
		if got := string(export.Data["partners"]); got != want {
			t.Fatalf("export partners: %s, want %s", got, want)
		}

		cc := h.generateCode(c)
		expect(t, h.do(req{Method: "DELETE", Path: "/api/users/user/" + a.ID, Token: a.Token}), 200, "")
		expect(t, h.pairingStatus(b), 200, unpairedStatus())
		expect(t, h.connection(b), 404, "")
		expect(t, h.connCreate(c, "pair-"+a.ID), 200, "") // a's code is free again
		expect(t, h.submitCode(b, cc), 200, "")           // b may pair again
	})
}

// TestConcurrentPairing fires both partners' submit-code at the same instant,
// 30 times, and expects exactly one partnership each time with no leftover
// rows; then two users linking to one code at once: one wins.
func TestConcurrentPairing(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		a, b, c := h.newUser("a@x.io"), h.newUser("b@x.io"), h.newUser("c@x.io")
		for round := range 30 {
			ca, cb := h.generateCode(a), h.generateCode(b)
			rs := h.atOnce(
				req{Method: "POST", Path: pairingPath(a), Token: a.Token, Body: map[string]any{"action": "submit-code", "targetCode": cb}},
				req{Method: "POST", Path: pairingPath(b), Token: b.Token, Body: map[string]any{"action": "submit-code", "targetCode": ca}},
			)
			first, second := rs[0], rs[1]
			if _, connected := second.JSON(t)["state"]; !connected {
				first, second = second, first
			}
			expect(t, first, 200, `{"status":"pending","message":"<string>","partnerId":"<string>","actionRequired":false}`)
			expect(t, second, 200, `{"state":"connected","message":"<string>","partnerId":"<string>","myCode":"<string>"}`)
			expect(t, h.pairingStatus(a), 200, statusJSON("connected", "", "", b.ID, "", "", false))
			expect(t, h.pairingStatus(b), 200, statusJSON("connected", "", "", a.ID, "", "", false))
			h.wantRows(t, round, 1)
			expect(t, h.post(pairingPath(a)+"/unpair", a.Token, nil), 200, "")
			h.wantRows(t, round, 0)
		}

		linkRace(t, h, []*harness{h, h}, b, c, 30)
	})
}

func (h *harness) keyedReq(method, path string, u user, body any) req {
	return req{Method: method, Path: path, Token: u.Token, Body: body, Headers: map[string]string{"X-API-Key": testAPIKey}}
}

// wantRows checks the stored rows on the SQL profiles: partnerships
// partnerships with two members each, and no pairing code or request left.
func (h *harness) wantRows(t *testing.T, round, partnerships int) {
	t.Helper()
	if h.DB == nil {
		return // memory: the API reads above are the check
	}
	for table, want := range map[string]int{"partnerships": partnerships, "partnership_members": 2 * partnerships,
		"pairing_codes": 0, "pairing_requests": 0} {
		var n int
		if err := h.DB.Get(&n, "SELECT COUNT(*) FROM "+table); err != nil {
			t.Fatal(err)
		}
		if n != want {
			t.Fatalf("round %d: %d rows in %s, want %d", round, n, table, want)
		}
	}
	var orphans int
	if err := h.DB.Get(&orphans, `SELECT COUNT(*) FROM partnership_members m
		LEFT JOIN partnerships p ON p.id = m.partnership_id WHERE p.id IS NULL`); err != nil {
		t.Fatal(err)
	}
	if orphans != 0 {
		t.Fatalf("round %d: %d orphaned members", round, orphans)
	}
}

// linkRace has b and c link with one owner's code at the same instant,
// rounds times, through links[0] and links[1] (one process, or two sharing
// h's database): one wins, the other is already_paired, and h sees the
// winner and one partnership.
func linkRace(t *testing.T, h *harness, links []*harness, b, c user, rounds int) {
	t.Helper()
	owner := h.newUser("o@x.io")
	expect(t, h.connCreate(owner, "shared-code"), 200, "")
	for round := range rounds {
		rs := atOnceAcross(t, links,
			links[0].keyedReq("POST", "/api/partnerConnections/link", b, map[string]any{"userId": b.ID, "connectionCode": "shared-code"}),
			links[1].keyedReq("POST", "/api/partnerConnections/link", c, map[string]any{"userId": c.ID, "connectionCode": "shared-code"}),
		)
		won, lost, winner := rs[0], rs[1], b
		if won.Status != 200 {
			won, lost, winner = rs[1], rs[0], c
		}
		expect(t, won, 200, `{"status":"success","data":{"partnerId":"`+owner.ID+`"}}`)
		if lost.Status != 409 || lost.JSON(t)["code"] != "already_paired" {
			t.Fatalf("round %d: the second link got %d %s", round, lost.Status, lost.Body)
		}
		expect(t, h.connection(owner), 200, connectionBody(owner, winner.ID, "shared-code"))
		h.wantRows(t, round, 1)
		expect(t, h.connUnlink(owner), 200, "")
	}
}
