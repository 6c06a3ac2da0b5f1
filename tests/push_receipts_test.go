package tests

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"tandem/adapters/push/expo/expotest"
	"tandem/adapters/push/fcm/fcmtest"
	"tandem/modules/notifications"
)

// Push that stays deliverable: the devices providers report dead are
// removed, whether the provider says so at once (an Expo ticket, FCM's
// answer) or later (an Expo receipt read by the receipt job).

// startExpo runs a local Expo push API (expotest: a token holding "gone" is
// DeviceNotRegistered at once; a receipt is by the ticket's token: "dies"
// DeviceNotRegistered, "big" MessageTooBig, "pending" not ready yet,
// anything else ok) and returns it with the TANDEM_PUSH value sending to it.
// One server serves every profile's app.
func startExpo(t *testing.T) (*expotest.Server, string) {
	t.Helper()
	e := expotest.Start(t)
	return e, "expo?url=" + e.SendURL()
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
	parallel(t)
	expo, push := startExpo(t)
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
		if expo.AskedFor(tokens["dies"]) != 0 || h.devicePlatforms(t, u) != "ios,web,android,ios" {
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
			if got := expo.AskedFor(tokens[kind]); got != want {
				t.Fatalf("%s asked %d times", kind, got)
			}
		}
		check(sent.Add(2*notifications.DefaultReceiptDelay - time.Second))
		check(sent.Add(2 * notifications.DefaultReceiptDelay))
		if expo.AskedFor(tokens["pending"]) != 2 || expo.AskedFor(tokens["fine"]) != 1 || expo.AskedFor(tokens["big"]) != 1 {
			t.Fatal("only the receipt not ready is asked again, a delay later")
		}
		check(sent.Add(notifications.TicketMaxAge))
		check(sent.Add(notifications.TicketMaxAge + time.Hour))
		if n := expo.AskedFor(tokens["pending"]); n != 3 {
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
	parallel(t)
	_, push := startExpo(t)
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

// TestFCMUnregisteredRemovesTheDevice: through a local FCM, a token FCM
// calls UNREGISTERED (404, or 400 with that code) loses its device; one it
// refuses for another reason keeps it.
func TestFCMUnregisteredRemovesTheDevice(t *testing.T) {
	parallel(t)
	fake := fcmtest.Start(t, nil)
	push := "fcm?project=" + fcmtest.Project + "&credentials=" + fake.CredentialsFile(t) + "&url=" + fake.URL
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
		n := 0
		for _, s := range fake.Tokens() {
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
