package tests

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"tandem/adapters/push/mempush"
)

// Smaller leaks: what a stranger (or the partner) could learn about a user
// without being allowed to.

// TestSecurityFlagsTellNoStrangerWhetherAUserIsPremium: feature flags are
// answered for the token's user; without a token for nobody, whoever the
// query names; another user only for an administrator.
func TestSecurityFlagsTellNoStrangerWhetherAUserIsPremium(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		boss, payer, stranger := h.newUser("boss@x.io"), h.newUser("payer@x.io"), h.newUser("stranger@x.io")
		expect(t, h.flagWrite(boss, map[string]any{"action": "create", "key": "hd_photos", "name": "HD", "isEnabled": true,
			"enabledForPremium": true}), 200, "")
		expect(t, h.flagWrite(boss, map[string]any{"action": "create", "key": "beta", "name": "Beta", "isEnabled": true,
			"rolloutPercentage": 0, "enabledForUserIds": []string{payer.ID}}), 200, "")
		now := h.Clock.Now()
		expect(t, h.post(premiumPath(payer), payer.Token, map[string]any{"action": "create", "plan": "9.99",
			"startDate": now.UnixMilli(), "endDate": now.AddDate(0, 1, 0).UnixMilli()}), 200, "")
		on := checkReply("hd_photos", true, "feature is enabled", "HD", "")
		off := checkReply("hd_photos", false, "feature is for premium users", "HD", "")
		check := func(token, query string) response {
			return h.get(flagsPath+"?flag=hd_photos&platform=ios"+query, token)
		}
		list := func(token, query string) response {
			return h.get(flagsPath+"?action=list&platform=ios"+query, token)
		}
		forbidden := errBody("forbidden", "you may only evaluate feature flags for yourself")

		// the owner's own answer
		expect(t, check(payer.Token, ""), 200, on)
		expect(t, check(payer.Token, "&userId="+payer.ID), 200, on)
		expect(t, list(payer.Token, ""), 200, listReply(payer.ID, "ios", "beta", "hd_photos"))

		// a stranger without a token is answered as nobody: the same as for anyone
		expect(t, check("", "&userId="+payer.ID), 200, off)
		expect(t, check("", "&userId="+stranger.ID), 200, off)
		expect(t, list("", "&userId="+payer.ID), 200, listReply("", "ios"))

		// a signed-in stranger naming the owner: 403
		expect(t, check(stranger.Token, "&userId="+payer.ID), 403, forbidden)
		expect(t, list(stranger.Token, "&userId="+payer.ID), 403, forbidden)
		expect(t, list(stranger.Token, ""), 200, listReply(stranger.ID, "ios"))

		// a bad token is refused, not answered as nobody
		expect(t, check("not-a-token", "&userId="+payer.ID), 401, errBody("unauthorized", "missing, invalid or expired token"))

		// an administrator may ask for anyone
		expect(t, check(boss.Token, "&userId="+payer.ID), 200, on)
		expect(t, list(boss.Token, "&userId="+payer.ID), 200, listReply(payer.ID, "ios", "beta", "hd_photos"))
	}, asAdmin)
}

// TestSecurityATakenPushTokenRevealsNoDeviceID: registering a push token that
// another account holds takes it as a new device; the previous owner's device
// id is never answered and works for no one afterwards.
func TestSecurityATakenPushTokenRevealsNoDeviceID(t *testing.T) {
	eachProfileWithPushes(t, func(t *testing.T, h *harness, pushes *mempush.Outbox) {
		a, b := h.newUser("a@x.io"), h.newUser("b@x.io")
		const token = "ExponentPushToken[phone-of-a]"
		old := h.registerDevice(a, token, "ios", "expo")
		kept := h.registerDevice(a, "ExponentPushToken[tablet-of-a]", "ios", "expo")

		taken := h.registerDevice(b, token, "android", "expo")
		if taken == old {
			t.Fatalf("b was answered a's device id %s", old)
		}
		// b registering it again keeps b's own id
		if again := h.registerDevice(b, token, "android", "expo"); again != taken {
			t.Fatalf("re-registered as %s, want %s", again, taken)
		}

		// a's devices no longer hold it (the export lists them)
		data := h.get("/api/users/user/"+a.ID+"/export", a.Token).JSON(t)["data"].(map[string]any)
		sameJSON(t, data["notifications"].(map[string]any)["devices"],
			`[{"id":"`+kept+`","platform":"ios","provider":"expo","registeredAt":"<number>"}]`)

		// the old id is dead for everyone
		notFound := errBody("not_found", "device not found")
		expect(t, h.do(req{Method: "DELETE", Path: notifPath(b, "/devices/"+old), Token: b.Token}), 404, notFound)
		expect(t, h.do(req{Method: "DELETE", Path: notifPath(a, "/devices/"+old), Token: a.Token}), 404, notFound)

		// a push to a reaches only the device a still has; b's reaches the taken one
		expect(t, h.sendTest(a, "systemUpdates"), 200, "")
		expect(t, h.sendTest(b, "systemUpdates"), 200, "")
		if got := pushes.To(a.ID); len(got) != 1 || got[0].Device.ID != kept {
			t.Fatalf("pushes to a %+v", got)
		}
		if got := pushes.To(b.ID); len(got) != 1 || got[0].Device.ID != taken || got[0].Device.Token != token {
			t.Fatalf("pushes to b %+v", got)
		}
		// and b may remove it under its new id only
		expect(t, h.do(req{Method: "DELETE", Path: notifPath(b, "/devices/"+taken), Token: b.Token}), 200, `{"success":true}`)
	})
}

// TestSecurityPartnerActivityNamesNoMemoryAndIsCoalesced: the partner hears
// that memories were added, never their titles (a memory is private to its
// author), in one unread entry that counts them, pushed at most every 10
// minutes.
func TestSecurityPartnerActivityNamesNoMemoryAndIsCoalesced(t *testing.T) {
	eachProfileWithPushes(t, func(t *testing.T, h *harness, pushes *mempush.Outbox) {
		me, partner := h.newUser("a@x.io"), h.newUser("b@x.io")
		h.registerDevice(me, "ExponentPushToken[me]", "ios", "expo")
		h.pair(me, partner)
		before := h.get(notifPath(me, "/notifications"), me.Token).JSON(t)["notifications"].([]any)
		pushedBefore := len(pushes.To(me.ID))

		for _, title := range []string{"Secret one", "Secret two", "Secret three"} {
			h.createMemory(partner, map[string]any{"title": title, "date": "2025-06-01"})
		}
		inbox := func(count int, at time.Time) {
			t.Helper()
			r := h.get(notifPath(me, "/notifications"), me.Token)
			if strings.Contains(string(r.Body), "Secret") {
				t.Fatalf("the inbox names a private memory: %s", r.Body)
			}
			items := r.JSON(t)["notifications"].([]any)
			if len(items) != len(before)+1 {
				t.Fatalf("%d new entries, want 1: %s", len(items)-len(before), r.Body)
			}
			sameJSON(t, items[0], notificationJSON("<string>", "New memories", fmt.Sprintf("Your partner added %d memories.", count),
				"partnerActivity", false, at))
		}
		inbox(3, h.Clock.Now().Add(-time.Millisecond))
		if n := h.unreadCount(t, me); n != len(before)+1 {
			t.Fatalf("unread %d", n)
		}
		got := pushes.To(me.ID)[pushedBefore:]
		if len(got) != 1 || got[0].Message.Body != "Your partner added a memory." || got[0].Message.Category != "partnerActivity" {
			t.Fatalf("pushes %+v, want exactly one", got)
		}

		// ten minutes after that push, the next memory is pushed again, with the count
		h.Clock.Advance(10 * time.Minute)
		h.createMemory(partner, map[string]any{"title": "Secret four", "date": "2025-06-01"})
		inbox(4, h.Clock.Now().Add(-time.Millisecond))
		got = pushes.To(me.ID)[pushedBefore:]
		if len(got) != 2 || got[1].Message.Body != "Your partner added 4 memories." || strings.Contains(fmt.Sprint(got), "Secret") {
			t.Fatalf("pushes %+v", got)
		}
	})
}
