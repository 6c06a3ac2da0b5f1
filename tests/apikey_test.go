package tests

import (
	"strings"
	"testing"
)

// The service key (X-API-Key) of the partner-connection and message routes:
// missing or wrong, it answers 401 invalid_api_key, never unauthorized (the
// code of a dead session, on which an app signs its user out), and changes
// nothing; a bearer token does not stand in for it.

var errBadKey = errBody("invalid_api_key", "missing or invalid X-API-Key")

// keyRefusals are the ways of sending r without a valid key: every one is
// 401 invalid_api_key, whether the token is good or not.
func keyRefusals(name string, r req, u user) []scenario {
	noKey := r.by(u)
	return []scenario{
		{name: name + ": no key", req: noKey, status: 401, want: errBadKey},
		{name: name + ": no key, no token", req: r.anonymous(), status: 401, want: errBadKey},
		{name: name + ": a wrong key", req: noKey.with("X-API-Key", "guess"), status: 401, want: errBadKey},
		{name: name + ": the key in another case", req: noKey.with("X-API-Key", strings.ToUpper(testAPIKey)), status: 401, want: errBadKey},
		{name: name + ": the key with a suffix", req: noKey.with("X-API-Key", testAPIKey+"x"), status: 401, want: errBadKey},
		{name: name + ": an empty key", req: noKey.with("X-API-Key", ""), status: 401, want: errBadKey},
		{name: name + ": the user's token as the key", req: noKey.with("X-API-Key", u.Token), status: 401, want: errBadKey},
		{name: name + ": the key as the bearer token", req: r.with("Authorization", "Bearer "+testAPIKey), status: 401, want: errBadKey},
		{name: name + ": a wrong key and a dead token", req: r.by(user{Token: "not-a-token"}).with("X-API-Key", "guess"), status: 401, want: errBadKey},
	}
}

func TestPartnerConnectionsNeedTheServiceKey(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		a, b := h.newUser("a@x.io"), h.newUser("b@x.io")
		expect(t, h.connCreate(a, "kx7-code-aaa"), 200, "")
		unchanged := func(t *testing.T, h *harness) {
			expect(t, h.connection(a), 200, connectionBody(a, "", "kx7-code-aaa"))
			expect(t, h.connection(b), 404, "")
			expect(t, h.pairingStatus(a), 200, unpairedStatus())
			expect(t, h.pairingStatus(b), 200, unpairedStatus())
		}
		var ss []scenario
		ss = append(ss, keyRefusals("create", POST("/api/partnerConnections/create", map[string]any{"userId": b.ID, "connectionCode": "kx7-code-bbb"}), b)...)
		ss = append(ss, keyRefusals("get", GET("/api/partnerConnections/get/"+a.ID), a)...)
		ss = append(ss, keyRefusals("link", POST("/api/partnerConnections/link", map[string]any{"userId": b.ID, "connectionCode": "kx7-code-aaa"}), b)...)
		ss = append(ss, keyRefusals("unlink", POST("/api/partnerConnections/unlink", map[string]any{"userId": a.ID}), a)...)
		runScenarios(t, h, afterEach(unchanged, ss))
	})
}

func TestMessagesNeedTheServiceKey(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		u := h.newUser("a@x.io")
		at := h.Clock.Now().UnixMilli()
		seed := h.sendMessage(u, "seed")
		unchanged := func(t *testing.T, h *harness) {
			expect(t, h.keyed("GET", "/api/messages/list", u, nil), 200, "["+messageJSON(seed, "seed", u, at)+"]")
		}
		var ss []scenario
		ss = append(ss, keyRefusals("list", GET("/api/messages/list"), u)...)
		ss = append(ss, keyRefusals("send", POST("/api/messages/send", map[string]any{"body": "not sent"}), u)...)
		runScenarios(t, h, afterEach(unchanged, ss))
	})
}

// TestEveryServiceKeyIsTaken: TANDEM_API_KEYS lists several keys (a new
// app build's beside the old one's while both are in use); each is taken,
// and a key taken off the list is refused.
func TestEveryServiceKeyIsTaken(t *testing.T) {
	parallel(t)
	h := newHarness(t, profile{name: "memory"}, withEnv("TANDEM_API_KEYS", "key-of-build-41, key-of-build-42"))
	u := h.newUser("a@x.io")
	for _, key := range []string{"key-of-build-41", "key-of-build-42"} {
		expect(t, h.do(GET("/api/messages/list").by(u).with("X-API-Key", key)), 200, "[]")
	}
	expect(t, h.do(GET("/api/messages/list").by(u).with("X-API-Key", testAPIKey)), 401, errBadKey)
}

// TestKeyedRoutesDocumentInvalidAPIKey: every operation that takes the
// service key documents its 401 with the shared response that names
// invalid_api_key, and no other operation does.
func TestKeyedRoutesDocumentInvalidAPIKey(t *testing.T) {
	c, err := loadContract()
	if err != nil {
		t.Fatal(err)
	}
	const keyed = "#/components/responses/UnauthorizedServiceKey"
	n := 0
	for path, item := range c.doc.Paths.Map() {
		for method, op := range item.Operations() {
			takesKey := false
			if op.Security != nil {
				for _, req := range *op.Security {
					if _, ok := req["apiKey"]; ok {
						takesKey = true
					}
				}
			}
			ref := op.Responses.Value("401")
			documentsKey := ref != nil && ref.Ref == keyed
			switch {
			case takesKey && !documentsKey:
				t.Errorf("%s %s takes X-API-Key but its 401 is not %s", method, path, keyed)
			case !takesKey && documentsKey:
				t.Errorf("%s %s documents invalid_api_key but takes no X-API-Key", method, path)
			}
			if takesKey {
				n++
			}
		}
	}
	if n == 0 {
		t.Fatal("no operation takes X-API-Key")
	}
}
