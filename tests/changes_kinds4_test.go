package tests

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"tandem/adapters/purchases/appstore/appstoretest"
	"tandem/modules/premium"
)

// The feed's premium and profile beyond their own routes' writes (issue
// 47): the premium a pairing shares, a store's notification, a premium
// that lapses with time; the profile's ways in (a password, a provider, a
// passkey, log out everywhere, a reset).

// premiumPut is u's premium put, as their subscription read shows it.
func premiumPut(u user) feedWant {
	return feedWant{kind: "premium", id: u.ID, op: "put", path: premiumPath(u) + "?action=subscription"}
}

// subscribe gives u a trusted subscription that ends at end.
func (h *harness) subscribe(u user, end time.Time) {
	h.t.Helper()
	expect(h.t, h.post(premiumPath(u), u.Token, map[string]any{"action": "create", "plan": "9.99",
		"startDate": h.Clock.Now().Add(-time.Hour).UnixMilli(), "endDate": end.UnixMilli(), "billingId": "gp-" + u.ID,
		"platform": "android"}), 200, "")
}

// feedStep reads a kind of u's feed from *since on, which it moves,
// against want.
func (h *harness) feedStep(u user, since *string, kind string, want ...feedWant) []feedChange {
	h.t.Helper()
	got, next := h.catchUp(u, *since, 100)
	*since = next
	got = ofKind(got, kind)
	h.wantFeed(u, got, want)
	return got
}

// A pairing puts the premium the new partner starts inheriting to them, as
// their subscription read shows it; the owner's, their own, is unchanged.
func TestChangesFeedCarriesThePremiumAPairingShares(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann, bob := h.newUser("ann@x.io"), h.newUser("bob@x.io")
		h.subscribe(ann, h.Clock.Now().AddDate(0, 1, 0))
		anns, bobs := h.cursorOf(ann), h.cursorOf(bob)
		h.pair(ann, bob)
		got := h.feedStep(bob, &bobs, "premium", premiumPut(bob))
		if !strings.Contains(string(got[0].Data), `"isPartnerInherited":true`) {
			t.Fatalf("bob's premium after the pairing: %s", got[0].Data)
		}
		h.feedStep(ann, &anns, "premium")
	})
}

// A premium whose end passes is recorded by the job runner: its owner's
// premium and the partner's who inherited it, as their reads show them
// after, once. A cancelled one lapses no more; a renewed one lapses again
// at its new end.
func TestChangesFeedCarriesTheLapseOfAPremium(t *testing.T) {
	eachProfileWith(t, func(t *testing.T, h *harness, svc *premium.Service) {
		ann, bob, eve := h.newUser("ann@x.io"), h.newUser("bob@x.io"), h.newUser("eve@x.io")
		h.pair(ann, bob)
		h.subscribe(ann, h.Clock.Now().Add(time.Hour)) // bob inherits it
		h.subscribe(eve, h.Clock.Now().Add(time.Hour))
		expect(t, h.post(premiumPath(eve), eve.Token, map[string]any{"action": "cancel"}), 200, "")
		anns, bobs, eves := h.cursorOf(ann), h.cursorOf(bob), h.cursorOf(eve)
		lapse := func(want int) {
			t.Helper()
			if n, err := svc.RecordLapses(context.Background()); n != want || err != nil {
				t.Fatalf("lapses recorded: %d, %v; want %d", n, err, want)
			}
		}

		lapse(0) // none due yet
		h.Clock.Advance(2 * time.Hour)
		lapse(1) // ann's; eve's, cancelled, lapsed at the cancel
		lapse(0) // once
		got := h.feedStep(ann, &anns, "premium", premiumPut(ann))
		if !strings.Contains(string(got[0].Data), `"isPremium":false`) {
			t.Fatalf("ann's premium after its end: %s", got[0].Data)
		}
		h.feedStep(bob, &bobs, "premium", premiumPut(bob))
		if got, _ := h.catchUpAll(eve, eves, 100); len(got) != 0 {
			t.Fatalf("a cancelled premium's lapse: %s", jsonStr(got))
		}

		end := h.Clock.Now().Add(time.Hour)
		expect(t, h.post(premiumPath(ann), ann.Token, map[string]any{"action": "update", "endDate": end.UnixMilli()}), 200, "")
		h.feedStep(ann, &anns, "premium", premiumPut(ann))
		h.feedStep(bob, &bobs, "premium", premiumPut(bob))
		h.Clock.Set(end)
		lapse(1)
		h.feedStep(ann, &anns, "premium", premiumPut(ann))
		h.feedStep(bob, &bobs, "premium", premiumPut(bob))
	})
}

// A store's notification that changes a subscription puts its holder's
// premium, and the partner's who inherits it; a redelivery, and a
// statement older than the one stored, put nothing.
func TestChangesFeedCarriesTheStoresNotifications(t *testing.T) {
	parallel(t)
	signer := appstoretest.New()
	eachProfile(t, func(t *testing.T, h *harness) {
		ann, bob, eve := h.newUser("ann@x.io"), h.newUser("bob@x.io"), h.newUser("eve@x.io")
		h.pair(ann, bob)
		now := h.Clock.Now().Truncate(time.Millisecond)
		original := "3000000" + strconv.FormatInt(now.UnixNano()%1e9, 10) + ann.ID[:4]
		tx := appleTx(original, now.Add(-time.Hour), now.AddDate(0, 1, 0), now)
		expect(t, h.post(premiumPath(ann), ann.Token, map[string]any{"action": "create", "signedTransactionInfo": signer.Transaction(tx),
			"plan": "lifetime", "startDate": now.UnixMilli(), "endDate": now.AddDate(1, 0, 0).UnixMilli()}), 200, "")
		anns, bobs, eves := h.cursorOf(ann), h.cursorOf(bob), h.cursorOf(eve)
		both := func() {
			t.Helper()
			h.feedStep(ann, &anns, "premium", premiumPut(ann))
			h.feedStep(bob, &bobs, "premium", premiumPut(bob))
		}
		none := func() {
			t.Helper()
			h.feedStep(ann, &anns, "premium")
			h.feedStep(bob, &bobs, "premium")
		}

		refundAt := now.Add(time.Minute)
		refundTx := tx
		refundTx.RevocationDate, refundTx.SignedDate = refundAt.UnixMilli(), refundAt.UnixMilli()
		refund := appleNotice(signer, "uuid-r-"+ann.ID, "REFUND", "", refundTx, nil, refundAt)
		expect(t, appleWebhook(h, refund), 200, `{"success":true,"type":"REFUND"}`)
		both()
		expect(t, appleWebhook(h, refund), 200, "") // redelivered
		late := appleTx(original, now, now.AddDate(0, 2, 0), now.Add(time.Second))
		expect(t, appleWebhook(h, appleNotice(signer, "uuid-l-"+ann.ID, "DID_RENEW", "", late, nil, now.Add(time.Second))), 200, "")
		none()
		backAt := refundAt.Add(time.Minute)
		back := appleTx(original, now, now.AddDate(0, 2, 0), backAt)
		expect(t, appleWebhook(h, appleNotice(signer, "uuid-b-"+ann.ID, "REFUND_REVERSED", "", back, nil, backAt)), 200, "")
		both()
		if got := h.premiumGet(bob, "action=subscription"); !strings.Contains(string(got.Body), `"isPartnerInherited":true`) {
			t.Fatalf("bob's premium after the reversal: %s", got.Body)
		}
		if got, _ := h.catchUpAll(eve, eves, 100); len(got) != 0 {
			t.Fatalf("a stranger's feed: %s", jsonStr(got))
		}
	}, withAppStore(t, signer))
}

// profileStep reads u's feed from *since on, which it moves: the profile's
// put as its GET returns it when put, else no profile change.
func (h *harness) profileStep(u user, since *string, put bool) {
	h.t.Helper()
	var want []feedWant
	if put {
		want = append(want, feedWant{kind: "profile", id: u.ID, op: "put", path: profilePath(u)})
	}
	h.feedStep(u, since, "profile", want...)
}

// The profile's sign-in methods and passwordRequired change with a first
// password, a provider linked by a sign-in and one unlinked: each puts the
// owner's profile; a password changed for another, and a refused unlink,
// put none; the partner's feed holds none.
func TestChangesFeedCarriesTheProfileThroughPasswordsAndProviders(t *testing.T) {
	eachProfileSigningIn(t, func(t *testing.T, h *harness, p idProviders) {
		r := h.signInWith("apple", p.apple.Sign(t, h.appleClaims(p, "apple-ann", "ann@x.io")), nil)
		expect(t, r, 200, signInOK(true))
		ann, bob := user{ID: r.JSON(t)["userId"].(string), Token: r.JSON(t)["token"].(string)}, h.newUser("bob@x.io")
		h.pair(ann, bob)
		anns, bobs := h.cursorOf(ann), h.cursorOf(bob)
		setPassword := func(body map[string]any) {
			t.Helper()
			set := h.post(profilePath(ann)+"/password", ann.Token, body)
			expect(t, set, 200, "")
			ann.Token = set.JSON(t)["token"].(string)
		}

		setPassword(map[string]any{"newPassword": pw})
		h.profileStep(ann, &anns, true)
		setPassword(map[string]any{"currentPassword": pw, "newPassword": "another-pass-1"})
		h.profileStep(ann, &anns, false)
		expect(t, h.signInWith("google", p.google.Sign(t, h.googleClaims(p, "google-ann", "ann@x.io", true)), nil), 200, signInOK(false))
		h.profileStep(ann, &anns, true)
		expect(t, h.do(DELETE(profilePath(ann)+"/signin/apple").by(ann)), 200, "")
		h.profileStep(ann, &anns, true)
		expect(t, h.do(DELETE(profilePath(ann)+"/signin/apple").by(ann)), 404, "")
		h.profileStep(ann, &anns, false)
		expect(t, h.get(profilePath(ann), ann.Token), 200, `{"success":true,"userId":"`+ann.ID+`","email":"ann@x.io",
			"displayName":"","timezone":"","locale":"en","createdAt":"<number>","signInMethods":["password","google"]}`)
		h.feedStep(bob, &bobs, "profile")

		// a reset gives an account its first password, and takes its provider
		r = h.signInWith("apple", p.apple.Sign(t, h.appleClaims(p, "apple-cy", "cy@x.io")), nil)
		cy := user{ID: r.JSON(t)["userId"].(string), Token: r.JSON(t)["token"].(string)}
		cys := h.cursorOf(cy)
		cy.Token = h.reset(cy, "cy@x.io")
		h.profileStep(cy, &cys, true)
		expect(t, h.get(profilePath(cy), cy.Token), 200, `{"success":true,"userId":"`+cy.ID+`","email":"cy@x.io",
			"displayName":"","timezone":"","locale":"en","createdAt":"<number>","signInMethods":["password"]}`)
	})
}

// reset sets u's password through the mailed reset code, and returns the
// token it gives.
func (h *harness) reset(u user, email string) string {
	h.t.Helper()
	expect(h.t, h.post("/api/auth/reset", "", map[string]any{"email": email}), 200, "")
	v := h.post("/api/auth/reset", "", map[string]any{"userId": u.ID, "code": h.Mail.Code(email)})
	expect(h.t, v, 200, "")
	r := h.post("/api/auth/reset", "", map[string]any{"userId": u.ID, "newPassword": "brand-new-pass", "resetToken": v.JSON(h.t)["resetToken"]})
	expect(h.t, r, 200, "")
	return r.JSON(h.t)["token"].(string)
}

// A first passkey and the last one removed change the profile's sign-in
// methods: each puts it, a second passkey and the removal of one of two
// put none; log out everywhere and a completed reset, which take every
// provider and passkey, put it too.
func TestChangesFeedCarriesTheProfileThroughPasskeysAndResets(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann := h.newUser("ann@x.io")
		anns := h.cursorOf(ann)
		first := h.registerPasskey(t, ann, newSoftKey(t))
		h.profileStep(ann, &anns, true)
		second := h.registerPasskey(t, ann, newSoftKey(t))
		h.profileStep(ann, &anns, false)
		expect(t, h.do(DELETE(profilePath(ann)+"/passkeys/"+first).by(ann)), 200, "")
		h.profileStep(ann, &anns, false)
		expect(t, h.do(DELETE(profilePath(ann)+"/passkeys/"+second).by(ann)), 200, "")
		h.profileStep(ann, &anns, true)

		h.registerPasskey(t, ann, newSoftKey(t))
		h.profileStep(ann, &anns, true)
		expect(t, h.post("/api/auth/logout", ann.Token, map[string]any{"all": true}), 200, "")
		_, ann.Token = h.login("ann@x.io")
		h.profileStep(ann, &anns, true)

		h.registerPasskey(t, ann, newSoftKey(t))
		h.profileStep(ann, &anns, true)
		ann.Token = h.reset(ann, "ann@x.io")
		h.profileStep(ann, &anns, true)
		expect(t, h.get(profilePath(ann), ann.Token), 200, `{"success":true,"userId":"`+ann.ID+`","email":"ann@x.io",
			"displayName":"","timezone":"","locale":"en","createdAt":"<number>","signInMethods":["password"]}`)
	}, withPasskeys())
}
