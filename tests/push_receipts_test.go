package tests

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"tandem/modules/notifications"
)

// Push that stays deliverable: the devices providers report dead are
// removed, whether the provider says so at once (an Expo ticket, FCM's
// answer) or later (an Expo receipt read by the receipt job).

// expoAPI is a local Expo push API with receipts: send answers one ticket
// per message (DeviceNotRegistered at once for tokens holding "gone", else
// ok with a new ticket id), and getReceipts answers each ticket by its
// token: "dies" DeviceNotRegistered, "big" MessageTooBig, "pending" not
// ready yet, anything else ok. One server serves every profile's app.
type expoAPI struct {
	mu      sync.Mutex
	tokenOf map[string]string // ticket id -> token
	asked   map[string]int    // ticket id -> getReceipts requests naming it
	bad     []string          // requests that were not what Expo takes
}

func newExpoAPI(t *testing.T) (*expoAPI, string) {
	t.Helper()
	e := &expoAPI{tokenOf: map[string]string{}, asked: map[string]int{}}
	srv := httptest.NewServer(e)
	t.Cleanup(func() {
		srv.Close()
		if len(e.bad) > 0 {
			t.Errorf("requests Expo would refuse: %v", e.bad)
		}
	})
	return e, "expo?url=" + srv.URL + "/--/api/v2/push/send"
}

func (e *expoAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	e.mu.Lock()
	defer e.mu.Unlock()
	raw, _ := io.ReadAll(r.Body)
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
		e.bad = append(e.bad, r.Method+" "+r.URL.Path)
	}
	w.Header().Set("Content-Type", "application/json")
	switch r.URL.Path {
	case "/--/api/v2/push/send":
		var msgs []struct {
			To string `json:"to"`
		}
		_ = json.Unmarshal(raw, &msgs)
		var tickets []string
		for _, m := range msgs {
			if strings.Contains(m.To, "gone") {
				tickets = append(tickets, `{"status":"error","message":"not registered","details":{"error":"DeviceNotRegistered"}}`)
				continue
			}
			id := fmt.Sprintf("%08d-0000-4000-8000-000000000000", len(e.tokenOf)+1)
			e.tokenOf[id] = m.To
			tickets = append(tickets, `{"status":"ok","id":"`+id+`"}`)
		}
		_, _ = io.WriteString(w, `{"data":[`+strings.Join(tickets, ",")+`]}`)
	case "/--/api/v2/push/getReceipts":
		var in struct {
			IDs []string `json:"ids"`
		}
		if err := json.Unmarshal(raw, &in); err != nil || len(in.IDs) == 0 || len(in.IDs) > 1000 {
			e.bad = append(e.bad, "getReceipts "+string(raw))
		}
		var data []string
		for _, id := range in.IDs {
			e.asked[id]++
			switch tok := e.tokenOf[id]; {
			case strings.Contains(tok, "dies"):
				data = append(data, fmt.Sprintf(`%q:{"status":"error","message":"%s is not a registered push notification recipient","details":{"error":"DeviceNotRegistered"}}`, id, tok))
			case strings.Contains(tok, "big"):
				data = append(data, fmt.Sprintf(`%q:{"status":"error","message":"too big","details":{"error":"MessageTooBig"}}`, id))
			case strings.Contains(tok, "pending"), tok == "":
			default:
				data = append(data, fmt.Sprintf(`%q:{"status":"ok"}`, id))
			}
		}
		_, _ = io.WriteString(w, `{"data":{`+strings.Join(data, ",")+`}}`)
	default:
		e.bad = append(e.bad, r.URL.Path)
		w.WriteHeader(http.StatusNotFound)
	}
}

// askedFor is how often getReceipts named the ticket of token.
func (e *expoAPI) askedFor(token string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for id, tok := range e.tokenOf {
		if tok == token {
			n += e.asked[id]
		}
	}
	return n
}

// devicePlatforms lists u's devices through GET devices, as their
// platforms in order (tokens are never answered).
func (h *harness) devicePlatforms(t *testing.T, u user) string {
	t.Helper()
	r := h.get(notifPath(u, "/devices"), u.Token)
	expect(t, r, 200, "")
	var out []string
	for _, d := range r.JSON(t)["devices"].([]any) {
		out = append(out, d.(map[string]any)["platform"].(string))
	}
	return strings.Join(out, ",")
}

// TestExpoReceiptsRemoveDeadDevices: register devices over HTTP, push
// through a local Expo, run the receipt job on the harness's clock: nothing
// is asked before the delay; then a DeviceNotRegistered receipt removes its
// device from GET devices, ok and other errors are forgotten, and a receipt
// not ready yet is asked again a delay later, until a day has passed.
func TestExpoReceiptsRemoveDeadDevices(t *testing.T) {
	expo, push := newExpoAPI(t)
	eachProfileWith(t, func(t *testing.T, h *harness, receipts *notifications.Receipts) {
		ctx := context.Background()
		u, other := h.newUser("a@x.io"), h.newUser("b@x.io")
		tag := h.env["TANDEM_DB"][:6] // tokens of this profile's app
		tokens := map[string]string{}
		for i, d := range []struct{ kind, platform string }{{"dies", "ios"}, {"fine", "android"}, {"big", "web"}, {"pending", "ios"}} {
			tokens[d.kind] = "ExponentPushToken[" + tag + "-" + d.kind + "]"
			h.registerDevice(u, tokens[d.kind], d.platform, "expo")
			h.Clock.Advance(time.Duration(i+1) * time.Second)
		}
		h.registerDevice(other, "ExponentPushToken["+tag+"-other-dies]", "ios", "expo")
		if got := h.devicePlatforms(t, u); got != "ios,web,android,ios" {
			t.Fatalf("devices %s", got)
		}
		expect(t, h.sendTest(u, "events"), 200, `{"success":true,"message":"notification saved; pushed to 4 of 4 devices",`+
			`"notificationType":"events","userOptedIn":true,"saved":true,"sent":4,"total":4,"action":"saved_and_sent"}`)
		sent := h.Clock.Now()
		check := func(at time.Time) {
			t.Helper()
			h.Clock.Set(at)
			if _, err := receipts.CheckDue(ctx); err != nil {
				t.Fatal(err)
			}
		}

		check(sent.Add(notifications.DefaultReceiptDelay - time.Second))
		if expo.askedFor(tokens["dies"]) != 0 || h.devicePlatforms(t, u) != "ios,web,android,ios" {
			t.Fatal("receipts read before the delay")
		}
		check(sent.Add(notifications.DefaultReceiptDelay))
		if got := h.devicePlatforms(t, u); got != "ios,web,android" {
			t.Fatalf("after the receipts: devices %s (the ios device that died is gone)", got)
		}
		if h.devicePlatforms(t, other) != "ios" {
			t.Fatal("another user's device was touched")
		}
		for kind, want := range map[string]int{"dies": 1, "fine": 1, "big": 1, "pending": 1} {
			if got := expo.askedFor(tokens[kind]); got != want {
				t.Fatalf("%s asked %d times", kind, got)
			}
		}
		check(sent.Add(2*notifications.DefaultReceiptDelay - time.Second))
		check(sent.Add(2 * notifications.DefaultReceiptDelay))
		if expo.askedFor(tokens["pending"]) != 2 || expo.askedFor(tokens["fine"]) != 1 || expo.askedFor(tokens["big"]) != 1 {
			t.Fatal("only the receipt not ready is asked again, a delay later")
		}
		check(sent.Add(notifications.TicketMaxAge))
		check(sent.Add(notifications.TicketMaxAge + time.Hour))
		if n := expo.askedFor(tokens["pending"]); n != 3 {
			t.Fatalf("the pending receipt asked %d times: once more at a day, then dropped", n)
		}
		if got := h.devicePlatforms(t, u); got != "ios,web,android" {
			t.Fatalf("devices %s", got)
		}

		// the next push goes to the three left
		expect(t, h.sendTest(u, "events"), 200, `{"success":true,"message":"notification saved; pushed to 3 of 3 devices",`+
			`"notificationType":"events","userOptedIn":true,"saved":true,"sent":3,"total":3,"action":"saved_and_sent"}`)
	}, withEnv("TANDEM_PUSH", push))
}

// TestExpoTicketDeviceNotRegisteredRemovesTheDevice: a DeviceNotRegistered
// ticket removes the device at once, before any receipt.
func TestExpoTicketDeviceNotRegisteredRemovesTheDevice(t *testing.T) {
	_, push := newExpoAPI(t)
	eachProfile(t, func(t *testing.T, h *harness) {
		u := h.newUser("a@x.io")
		h.registerDevice(u, "ExponentPushToken[gone-"+h.env["TANDEM_DB"][:6]+"]", "android", "expo")
		h.Clock.Advance(time.Second)
		h.registerDevice(u, "ExponentPushToken[live]", "ios", "expo")
		expect(t, h.sendTest(u, "mood"), 200, `{"success":true,"message":"notification saved; pushed to 1 of 2 devices",`+
			`"notificationType":"mood","userOptedIn":true,"saved":true,"sent":1,"total":2,"action":"saved_and_sent"}`)
		if got := h.devicePlatforms(t, u); got != "ios" {
			t.Fatalf("devices %s", got)
		}
	}, withEnv("TANDEM_PUSH", push))
}

// fcmAPI is a local FCM HTTP v1 API and OAuth token endpoint: a token
// starting "gone" is 404 UNREGISTERED, "unreg" 400 UNREGISTERED, "bad" 400
// INVALID_ARGUMENT, anything else accepted.
type fcmAPI struct {
	mu    sync.Mutex
	sends []string // tokens
}

func (f *fcmAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.URL.Path == "/token":
		_, _ = io.WriteString(w, `{"access_token":"at-1","expires_in":3600,"token_type":"Bearer"}`)
		return
	case r.URL.Path != "/v1/projects/p1/messages:send" || r.Header.Get("Authorization") != "Bearer at-1":
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	var body struct {
		Message struct {
			Token string `json:"token"`
		} `json:"message"`
	}
	raw, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(raw, &body)
	tok := body.Message.Token
	f.mu.Lock()
	f.sends = append(f.sends, tok)
	f.mu.Unlock()
	fail := func(status int, name, code string) {
		w.WriteHeader(status)
		_, _ = fmt.Fprintf(w, `{"error":{"code":%d,"message":"failed","status":"%s","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"%s"}]}}`,
			status, name, code)
	}
	switch {
	case strings.HasPrefix(tok, "gone"):
		fail(404, "NOT_FOUND", "UNREGISTERED")
	case strings.HasPrefix(tok, "unreg"):
		fail(400, "INVALID_ARGUMENT", "UNREGISTERED")
	case strings.HasPrefix(tok, "bad"):
		fail(400, "INVALID_ARGUMENT", "INVALID_ARGUMENT")
	default:
		_, _ = io.WriteString(w, `{"name":"projects/p1/messages/0:1"}`)
	}
}

// fcmCredentials writes a service-account file whose token_uri is base/token.
func fcmCredentials(t *testing.T, base string) string {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]string{"type": "service_account", "client_email": "sa@p1.iam.gserviceaccount.com",
		"private_key_id": "k1", "private_key": string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"token_uri": base + "/token"})
	path := filepath.Join(t.TempDir(), "sa.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestFCMUnregisteredRemovesTheDevice: through a local FCM, a token FCM
// calls UNREGISTERED (404, or 400 with that code) loses its device; one it
// refuses for another reason keeps it.
func TestFCMUnregisteredRemovesTheDevice(t *testing.T) {
	fake := &fcmAPI{}
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	push := "fcm?project=p1&credentials=" + fcmCredentials(t, srv.URL) + "&url=" + srv.URL
	eachProfile(t, func(t *testing.T, h *harness) {
		u := h.newUser("a@x.io")
		tag := h.env["TANDEM_DB"][:6]
		for i, d := range []struct{ token, platform string }{{"gone-", "ios"}, {"unreg-", "android"}, {"bad-", "web"}, {"live-", "android"}} {
			h.registerDevice(u, d.token+tag, d.platform, "fcm")
			h.Clock.Advance(time.Duration(i+1) * time.Second)
		}
		expect(t, h.sendTest(u, "mood"), 200, `{"success":true,"message":"notification saved; pushed to 1 of 4 devices",`+
			`"notificationType":"mood","userOptedIn":true,"saved":true,"sent":1,"total":4,"action":"saved_and_sent"}`)
		if got := h.devicePlatforms(t, u); got != "android,web" {
			t.Fatalf("devices %s: the two UNREGISTERED ones are gone", got)
		}
		fake.mu.Lock()
		sends := slices.Clone(fake.sends)
		fake.mu.Unlock()
		n := 0
		for _, s := range sends {
			if strings.HasSuffix(s, tag) {
				n++
			}
		}
		if n != 4 {
			t.Fatalf("%d sends", n)
		}
	}, withEnv("TANDEM_PUSH", push))
}

func TestDevicesList(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		u, partner, stranger := h.newUser("a@x.io"), h.newUser("b@x.io"), h.newUser("c@x.io")
		h.pair(u, partner)
		path := notifPath(u, "/devices")
		expect(t, h.get(path, u.Token), 200, `{"success":true,"devices":[]}`)
		first := h.registerDevice(u, "ExponentPushToken[a]", "ios", "expo")
		at := h.Clock.Now()
		h.Clock.Advance(time.Minute)
		second := h.registerDevice(u, "fcm-token-b", "android", "fcm")
		h.registerDevice(partner, "ExponentPushToken[c]", "web", "expo")
		h.registerDevice(stranger, "ExponentPushToken[d]", "web", "expo")
		device := func(id, platform, provider string, at time.Time) string {
			return fmt.Sprintf(`{"id":%q,"platform":%q,"provider":%q,"registeredAt":%d}`, id, platform, provider, at.UnixMilli())
		}
		runScenarios(t, h, signedIn(u, []scenario{
			{name: "newest first, without tokens", req: GET(path), status: 200,
				want: `{"success":true,"devices":[` + device(second, "android", "fcm", h.Clock.Now()) + `,` + device(first, "ios", "expo", at) + `]}`},
			{name: "no token", req: GET(path).anonymous(), status: 401, want: errNoToken},
			{name: "a stranger's", req: GET(notifPath(stranger, "/devices")), status: 403, want: errNotYours},
			{name: "the partner's", req: GET(notifPath(partner, "/devices")), status: 403, want: errNotYours},
			{name: "with the partner's token", req: GET(path).by(partner), status: 403, want: errNotYours},
		}))
		if r := h.get(path, u.Token); strings.Contains(string(r.Body), "ExponentPushToken") || strings.Contains(string(r.Body), "fcm-token") {
			t.Fatalf("a token was answered: %s", r.Body)
		}
	})
}
