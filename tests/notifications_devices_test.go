// This file holds devices over HTTP: register, move to another user and
// remove, the registration's errors, and pushes delivered through a local
// Expo.

package tests

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"tandem/adapters/push/expo/expotest"
	"tandem/adapters/push/mempush"
)

func TestDevicesRegisterMoveAndRemove(t *testing.T) {
	eachProfileWithPushes(t, func(t *testing.T, h *harness, pushes *mempush.Outbox) {
		a, b := h.newUser("a@x.io"), h.newUser("b@x.io")
		total := func(u user) string {
			t.Helper()
			r := h.sendTest(u, "systemUpdates")
			expect(t, r, 200, "")
			return fmt.Sprint(r.JSON(t)["total"])
		}
		d1 := h.registerDevice(a, "ExponentPushToken[shared]", "ios", "expo")
		if again := h.registerDevice(a, "ExponentPushToken[shared]", "ios", "expo"); again != d1 {
			t.Fatalf("re-registering made a new device %s", again)
		}
		d2 := h.registerDevice(a, "fcm:token-a", "web", "fcm")
		if total(a) != "2" {
			t.Fatal("a has two devices")
		}
		// the same token from b: taken from a as a new device of b's
		moved := h.registerDevice(b, "ExponentPushToken[shared]", "android", "expo")
		if moved == d1 {
			t.Fatalf("b was handed a's device id %s", d1)
		}
		if total(a) != "1" || total(b) != "1" {
			t.Fatal("the device did not move")
		}
		last := pushes.To(b.ID)
		if len(last) != 1 || last[0].Device.ID != moved || last[0].Device.Platform != "android" {
			t.Fatalf("pushes to b %+v", last)
		}

		// export lists devices without their tokens
		data := h.get("/api/users/user/"+a.ID+"/export", a.Token).JSON(t)["data"].(map[string]any)
		devs, _ := json.Marshal(data["notifications"].(map[string]any)["devices"])
		if want := `[{"id":"` + d2 + `","platform":"web","provider":"fcm","registeredAt":` + itoa(h.Clock.Now().UnixMilli()) + `}]`; string(devs) != want {
			t.Fatalf("export devices %s, want %s", devs, want)
		}

		expect(t, h.do(req{Method: "DELETE", Path: notifPath(a, "/devices/"+d1), Token: a.Token}), 404, errBody("not_found", "device not found"))
		expect(t, h.do(req{Method: "DELETE", Path: notifPath(a, "/devices/nope"), Token: a.Token}), 404, errBody("not_found", "device not found"))
		expect(t, h.do(req{Method: "DELETE", Path: notifPath(b, "/devices/"+d1), Token: a.Token}), 403, errBody("forbidden", "you may only act on your own account"))
		expect(t, h.do(req{Method: "DELETE", Path: notifPath(a, "/devices/"+d2), Token: a.Token}), 200, `{"success":true}`)
		expect(t, h.do(req{Method: "DELETE", Path: notifPath(a, "/devices/"+d2), Token: a.Token}), 404, errBody("not_found", "device not found"))
		if total(a) != "0" || total(b) != "1" {
			t.Fatal("remove")
		}
	})
}

func TestDeviceRegistrationErrors(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		u, other := h.newUser("a@x.io"), h.newUser("b@x.io")
		path := notifPath(u, "/devices")
		dev := func(token, platform, provider any) map[string]any {
			return map[string]any{"token": token, "platform": platform, "provider": provider}
		}
		runScenarios(t, h, signedIn(u, []scenario{
			{name: "unknown platform", req: POST(path, dev("t", "tizen", "fcm")), status: 400,
				want: errInvalid("platform must be ios, android or web")},
			{name: "missing platform", req: POST(path, map[string]any{"token": "t", "provider": "fcm"}), status: 400,
				want: errInvalid("platform is required: ios, android or web")},
			{name: "unknown provider", req: POST(path, dev("t", "ios", "apns")), status: 400, want: errInvalid("provider must be expo or fcm")},
			{name: "missing provider", req: POST(path, map[string]any{"token": "t", "platform": "ios"}), status: 400,
				want: errInvalid("provider is required: expo or fcm")},
			{name: "missing token", req: POST(path, map[string]any{"platform": "ios", "provider": "fcm"}), status: 400,
				want: errInvalid("token is required")},
			{name: "token with a space", req: POST(path, dev("a b", "ios", "fcm")), status: 400,
				want: errInvalid("token must be printable ASCII without spaces")},
			{name: "token of 1025", req: POST(path, dev(strings.Repeat("t", 1025), "ios", "fcm")), status: 400,
				want: errInvalid("token must be at most 1024 characters")},
			{name: "expo token of the wrong form", req: POST(path, dev("fcm-looking", "ios", "expo")), status: 400,
				want: errInvalid("an expo token looks like ExponentPushToken[...]")},
			{name: "token not a string", req: POST(path, dev(12, "ios", "fcm")), status: 400, want: errInvalid("field token must be a string")},
			{name: "malformed JSON", req: POST(path, `{"token":`), status: 400, want: errInvalid("malformed JSON")},
			{name: "no token", req: POST(path, dev("t", "ios", "fcm")).anonymous(), status: 401, want: errNoToken},
			{name: "for someone else", req: POST(notifPath(other, "/devices"), dev("t", "ios", "fcm")), status: 403, want: errNotYours},
			{name: "delete without a token", req: DELETE(path + "/some-id").anonymous(), status: 401, want: errNoToken},
			{name: "delete someone else's", req: DELETE(notifPath(other, "/devices/some-id")), status: 403, want: errNotYours},
		}))
		// nothing stored: a test notification finds no device
		expect(t, h.sendTest(u, "mood"), 200, `{"success":true,"message":"notification saved; no device is registered","notificationType":"mood",`+
			`"userOptedIn":true,"saved":true,"sent":0,"total":0,"action":"saved_only"}`)
		expect(t, h.sendTest(other, "mood"), 200, `{"success":true,"message":"notification saved; no device is registered","notificationType":"mood",`+
			`"userOptedIn":true,"saved":true,"sent":0,"total":0,"action":"saved_only"}`)
	})
}

// TestPushThroughExpo runs the app with TANDEM_PUSH=expo?url=<local Expo>:
// the request the app sends, the dead token it removes, and an fcm device
// that no configured provider serves (counted, not sent).
func TestPushThroughExpo(t *testing.T) {
	parallel(t)
	for _, p := range profiles(t) {
		t.Run(p.name, func(t *testing.T) {
			parallel(t)
			fake := expotest.Start(t)
			h := newHarness(t, p, withEnv("TANDEM_PUSH", "expo?url="+fake.SendURL()))
			u := h.newUser("a@x.io")
			h.registerDevice(u, "ExponentPushToken[live]", "ios", "expo")
			h.Clock.Advance(time.Second)
			h.registerDevice(u, "ExponentPushToken[gone]", "android", "expo")
			h.Clock.Advance(time.Second)
			h.registerDevice(u, "fcm-only-token", "android", "fcm")

			r := h.post(notifPath(u, "/send-test-notification"), u.Token, map[string]any{"title": "Hi", "message": "From Expo", "category": "events"})
			expect(t, r, 200, `{"success":true,"message":"notification saved; pushed to 1 of 3 devices","notificationType":"events",`+
				`"userOptedIn":true,"saved":true,"sent":1,"total":3,"action":"saved_and_sent"}`)
			id := h.get(notifPath(u, "/notifications"), u.Token).JSON(t)["notifications"].([]any)[0].(map[string]any)["id"].(string)

			reqs := fake.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests to Expo", len(reqs))
			}
			got := reqs[0]
			if got.Method != "POST" || got.Path != "/--/api/v2/push/send" || got.ContentType != "application/json" || got.Accept != "application/json" {
				t.Fatalf("request %+v", got)
			}
			body, _ := json.Marshal(fake.Batches()[0])
			msg := func(to string) string {
				return `{"body":"From Expo","data":{"category":"events","notificationId":"` + id + `"},"sound":"default","title":"Hi","to":"` + to + `"}`
			}
			if want := `[` + msg("ExponentPushToken[gone]") + `,` + msg("ExponentPushToken[live]") + `]`; string(body) != want {
				t.Fatalf("sent\n%s\nwant\n%s", body, want)
			}

			// the dead token's device is gone: the next send counts two devices
			expect(t, h.post(notifPath(u, "/send-test-notification"), u.Token, map[string]any{"title": "Again", "message": "m", "category": "events"}),
				200, `{"success":true,"message":"notification saved; pushed to 1 of 2 devices","notificationType":"events",`+
					`"userOptedIn":true,"saved":true,"sent":1,"total":2,"action":"saved_and_sent"}`)
			reqs, batches := fake.Requests(), fake.Batches()
			if len(reqs) != 2 || len(batches) != 2 || len(batches[1]) != 1 || batches[1][0]["to"] != "ExponentPushToken[live]" {
				t.Fatalf("second request %+v %v", reqs, batches)
			}
			data := h.get("/api/users/user/"+u.ID+"/export", u.Token).JSON(t)["data"].(map[string]any)
			if devs := data["notifications"].(map[string]any)["devices"].([]any); len(devs) != 2 {
				t.Fatalf("devices after the dead token: %v", devs)
			}
		})
	}
}
