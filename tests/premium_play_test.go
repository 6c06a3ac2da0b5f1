package tests

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tandem/adapters/purchases/play"
	"tandem/adapters/purchases/play/playtest"
)

const playSecret = "push-secret-0123456789"

// withPlay verifies purchases with a local server speaking the Google Play
// Developer API and its token exchange; trust is not listed, as in production.
func withPlay(t *testing.T, srv *playtest.Server) option {
	creds := filepath.Join(t.TempDir(), "play.json")
	if err := os.WriteFile(creds, srv.Credentials(), 0o600); err != nil {
		t.Fatal(err)
	}
	return withEnv("TANDEM_PURCHASES", "play?package="+playtest.Package+"&credentials="+creds+"&endpoint="+srv.URL()+
		"&secret="+playSecret+"&plan.tandem.monthly=9.99&plan.tandem.yearly=59.99")
}

// ownPlay is a profile's own Google Play: the test makes it fail.
func ownPlay(t *testing.T) (*playtest.Server, option) {
	srv := playtest.New(t)
	return srv, withPlay(t, srv)
}

func playWebhook(h *harness, token string, body []byte) response {
	h.t.Helper()
	return h.do(req{Method: "POST", Path: "/api/webhooks/google-play?token=" + token, Body: body})
}

func playNotice(kind int, token, product string) play.DeveloperNotification {
	return play.DeveloperNotification{Version: "1.0", PackageName: playtest.Package, EventTimeMillis: "1750000000000",
		SubscriptionNotification: &play.SubscriptionNotification{Version: "1.0", NotificationType: kind,
			PurchaseToken: token, SubscriptionID: product}}
}

func buyOnPlay(token, product string) map[string]any {
	return map[string]any{"action": "create", "purchaseToken": token, "productId": product}
}

func TestPremiumGooglePlayPurchases(t *testing.T) {
	eachProfileOwn(t, ownPlay, func(t *testing.T, h *harness, srv *playtest.Server) {
		a, b, c := h.newUser("a@x.io"), h.newUser("b@x.io"), h.newUser("c@x.io")
		h.pair(a, b)
		now := h.Clock.Now()
		expiry := now.AddDate(0, 1, 0).Truncate(time.Millisecond)
		token := "tok-" + a.ID
		srv.Put(token, playtest.Subscription("tandem.monthly", play.SubscriptionStateActive, now.Add(-time.Hour), expiry))

		// The classic attack: premium for the couple from the client's word alone.
		for _, body := range []map[string]any{
			{"action": "create", "plan": "lifetime", "startDate": now.UnixMilli(), "endDate": now.AddDate(100, 0, 0).UnixMilli()},
			buyOnPlay("tok-unknown", "tandem.monthly"),
			buyOnPlay(token, "tandem.yearly"),            // not the product bought
			buyOnPlay(token, "tandem.premium"),           // not in the plan map
			{"action": "create", "purchaseToken": token}, // no productId
		} {
			r := h.post(premiumPath(a), a.Token, body)
			expect(t, r, 400, `{"success":false,"error":"<string>","code":"invalid_purchase","message":"<string>"}`)
		}
		expect(t, h.premiumGet(a, "action=status"), 200, noPremium)

		// The real purchase: everything but meta comes from Google Play.
		body := buyOnPlay(token, "tandem.monthly")
		body["plan"], body["endDate"], body["startDate"] = "lifetime", now.AddDate(100, 0, 0).UnixMilli(), now.UnixMilli()
		body["meta"] = map[string]any{"screen": "paywall"}
		expect(t, h.post(premiumPath(a), a.Token, body), 200, `{"success":true,"created":true}`)
		if srv.Acks(token) != 1 {
			t.Fatalf("acknowledged %d times, want once", srv.Acks(token))
		}
		start := now.Add(-time.Hour).Truncate(time.Second).UnixMilli()
		playSub := func(end int64, active bool, state string, renewed int64) string {
			return `{"success":true,"isPremium":` + bstr(active) + `,"subscription":{"plan":"9.99","startDate":` + itoa(start) +
				`,"endDate":` + itoa(end) + `,"isActive":` + bstr(active) + `,"isPartnerInherited":false,` +
				`"billingId":"GPA.3300-1234-5678-90123","platform":"android","lastRenewed":` + itoa(renewed) +
				`,"cancelled":false,"meta":{"screen":"paywall"},"store":"play","state":"` + state + `"}}`
		}
		expect(t, h.premiumGet(a, "action=subscription"), 200, playSub(expiry.UnixMilli(), true, "active", now.UnixMilli()))
		expect(t, h.premiumGet(b, "action=status"), 200,
			`{"isPremium":true,"source":"partner","partnerId":"`+a.ID+`","message":"premium shared by your partner"}`)

		// The token is stored only as its hash.
		export := h.get("/api/users/user/"+a.ID+"/export", a.Token)
		sum := sha256.Sum256([]byte(token))
		if !strings.Contains(string(export.Body), hex.EncodeToString(sum[:])) || strings.Contains(string(export.Body), token) {
			t.Fatalf("export: %s", export.Body)
		}

		// One purchase, one account: another couple cannot share the receipt.
		expect(t, h.post(premiumPath(c), c.Token, buyOnPlay(token, "tandem.monthly")), 409,
			`{"success":false,"error":"<string>","code":"purchase_in_use","message":"<string>"}`)
		expect(t, h.premiumGet(c, "action=status"), 200, noPremium)

		// A store subscription changes through the store only; meta is the app's.
		expect(t, h.post(premiumPath(a), a.Token, map[string]any{"action": "update", "plan": "lifetime"}), 400,
			`{"success":false,"error":"<string>","code":"invalid_purchase","message":"<string>"}`)
		expect(t, h.post(premiumPath(a), a.Token, map[string]any{"action": "update", "meta": map[string]any{"k": 1}}), 200,
			`{"success":true,"updated":true}`)
		expect(t, h.post(premiumPath(a), a.Token, map[string]any{"action": "update", "meta": map[string]any{"screen": "paywall"}}), 200,
			`{"success":true,"updated":true}`)

		// Google Play renews: the push is verified, the subscription read again.
		h.Clock.Advance(time.Hour)
		renewed := expiry.AddDate(0, 1, 0)
		srv.Put(token, playtest.Subscription("tandem.monthly", play.SubscriptionStateActive, now.Add(-time.Hour), renewed))
		push := srv.PushBody("msg-1-"+a.ID, playNotice(play.SubscriptionRenewed, token, "tandem.monthly"))
		for _, bad := range []string{"", "wrong-secret"} {
			expect(t, playWebhook(h, bad, push), 401, `{"success":false,"error":"<string>","code":"unauthorized","message":"<string>"}`)
		}
		expect(t, h.premiumGet(a, "action=subscription"), 200, playSub(expiry.UnixMilli(), true, "active", now.UnixMilli()))
		expect(t, playWebhook(h, playSecret, push), 200, `{"success":true,"type":"SUBSCRIPTION_RENEWED"}`)
		renewedAt := h.Clock.Now().UnixMilli()
		expect(t, h.premiumGet(a, "action=subscription"), 200, playSub(renewed.UnixMilli(), true, "active", renewedAt))

		// Revoked: premium ends at once for both partners. The same message
		// delivered again is not applied twice.
		revoked := playtest.Subscription("tandem.monthly", play.SubscriptionStateExpired, now.Add(-time.Hour), renewed)
		srv.Put(token, revoked)
		expect(t, playWebhook(h, playSecret, srv.PushBody("msg-2-"+a.ID,
			playNotice(play.SubscriptionRevoked, token, "tandem.monthly"))), 200, `{"success":true,"type":"SUBSCRIPTION_REVOKED"}`)
		expect(t, h.premiumGet(a, "action=status"), 200, noPremium)
		expect(t, h.premiumGet(b, "action=status"), 200, noPremium)
		srv.Put(token, playtest.Subscription("tandem.monthly", play.SubscriptionStateActive, now.Add(-time.Hour), renewed))
		expect(t, playWebhook(h, playSecret, push), 200, `{"success":true,"type":"SUBSCRIPTION_RENEWED"}`) // msg-1 again
		expect(t, h.premiumGet(a, "action=status"), 200, noPremium)

		// Another app's notification is refused and changes nothing.
		other := playNotice(play.SubscriptionRecovered, token, "tandem.monthly")
		other.PackageName = "com.other.app"
		expect(t, playWebhook(h, playSecret, srv.PushBody("msg-3-"+a.ID, other)), 400,
			`{"success":false,"error":"<string>","code":"invalid_notification","message":"<string>"}`)
		expect(t, h.premiumGet(a, "action=status"), 200, noPremium)

		// Google Play down: 503, nothing written; the app retries later.
		srv.Put("tok2-"+c.ID, playtest.Subscription("tandem.yearly", play.SubscriptionStateActive, now, now.AddDate(1, 0, 0)))
		srv.Fail(503)
		expect(t, h.post(premiumPath(c), c.Token, buyOnPlay("tok2-"+c.ID, "tandem.yearly")), 503,
			`{"success":false,"error":"<string>","code":"unavailable","message":"<string>"}`)
		expect(t, h.premiumGet(c, "action=subscription"), 200, `{"success":true,"isPremium":false,"subscription":null}`)
		srv.Fail(0)
		expect(t, h.post(premiumPath(c), c.Token, buyOnPlay("tok2-"+c.ID, "tandem.yearly")), 200, `{"success":true,"created":true}`)
		expect(t, h.premiumGet(c, "action=status"), 200, directPremium)

		// Cancel is the account's own switch: a renewal from the store does not
		// undo it; the next create does.
		expect(t, h.post(premiumPath(c), c.Token, map[string]any{"action": "cancel"}), 200,
			`{"success":true,"deactivated":true}`)
		expect(t, h.premiumGet(c, "action=status"), 200, noPremium)
		srv.Put("tok2-"+c.ID, playtest.Subscription("tandem.yearly", play.SubscriptionStateActive, now, now.AddDate(2, 0, 0)))
		expect(t, playWebhook(h, playSecret, srv.PushBody("msg-4-"+c.ID,
			playNotice(play.SubscriptionRenewed, "tok2-"+c.ID, "tandem.yearly"))), 200, `{"success":true,"type":"SUBSCRIPTION_RENEWED"}`)
		expect(t, h.premiumGet(c, "action=status"), 200, noPremium)
		sub := h.premiumGet(c, "action=subscription").JSON(t)["subscription"].(map[string]any)
		if sub["cancelled"] != true || int64(sub["endDate"].(float64)) != now.AddDate(2, 0, 0).Truncate(time.Millisecond).UnixMilli() {
			t.Fatalf("after cancel and renewal: %v", sub)
		}
		expect(t, h.post(premiumPath(c), c.Token, buyOnPlay("tok2-"+c.ID, "tandem.yearly")), 200, `{"success":true,"created":true}`)
		expect(t, h.premiumGet(c, "action=status"), 200, directPremium)
	})
}

// A VOIDED_PURCHASE push revokes only what Play confirms: a forged one (the
// secret leaked, or a premature retry) about a subscription Play still
// holds changes nothing; once Play shows it revoked (expired), it ends.
func TestPremiumGooglePlayVoidedNeedsPlaysWord(t *testing.T) {
	eachProfileOwn(t, ownPlay, func(t *testing.T, h *harness, srv *playtest.Server) {
		a := h.newUser("a@x.io")
		now := h.Clock.Now()
		token := "tok-" + a.ID
		srv.Put(token, playtest.Subscription("tandem.monthly", play.SubscriptionStateActive, now.Add(-time.Hour), now.AddDate(0, 1, 0)))
		expect(t, h.post(premiumPath(a), a.Token, buyOnPlay(token, "tandem.monthly")), 200, `{"success":true,"created":true}`)
		voided := func(id string) []byte {
			return srv.PushBody(id, play.DeveloperNotification{Version: "1.0", PackageName: playtest.Package,
				EventTimeMillis: itoa(now.UnixMilli()), VoidedPurchaseNotification: &play.VoidedPurchaseNotification{
					PurchaseToken: token, OrderID: "GPA.3300-1234-5678-90123", ProductType: play.ProductTypeSubscription, RefundType: 1}})
		}
		state := func() any {
			return h.premiumGet(a, "action=subscription").JSON(t)["subscription"].(map[string]any)["state"]
		}

		expect(t, playWebhook(h, playSecret, voided("msg-v1-"+a.ID)), 200, `{"success":true,"type":"VOIDED_PURCHASE"}`)
		expect(t, h.premiumGet(a, "action=status"), 200, directPremium)
		if s := state(); s != "active" {
			t.Fatalf("state %v after an unconfirmed void", s)
		}

		srv.Put(token, playtest.Subscription("tandem.monthly", play.SubscriptionStateExpired, now.Add(-time.Hour), now.AddDate(0, 1, 0)))
		h.Clock.Advance(time.Minute)
		expect(t, playWebhook(h, playSecret, voided("msg-v2-"+a.ID)), 200, `{"success":true,"type":"VOIDED_PURCHASE"}`)
		expect(t, h.premiumGet(a, "action=status"), 200, noPremium)
		if s := state(); s != "revoked" {
			t.Fatalf("state %v after a confirmed void", s)
		}
	})
}

// With audience= the webhook takes Google-signed tokens from the push
// subscription's service account only (email=): a token Google signed for
// any other account, or with an unverified e-mail, is refused and changes
// nothing.
func TestPremiumGooglePlayPushFromItsServiceAccountOnly(t *testing.T) {
	parallel(t)
	const aud, pusher = "https://tandem.test/api/webhooks/google-play", "pubsub-push@tandem.iam.gserviceaccount.com"
	own := func(t *testing.T) (*playtest.Server, option) {
		srv := playtest.New(t)
		creds := filepath.Join(t.TempDir(), "play.json")
		if err := os.WriteFile(creds, srv.Credentials(), 0o600); err != nil {
			t.Fatal(err)
		}
		return srv, withEnv("TANDEM_PURCHASES", "play?package="+playtest.Package+"&credentials="+creds+"&endpoint="+srv.URL()+
			"&audience="+aud+"&email="+pusher+"&certs="+srv.CertsURL()+"&plan.tandem.monthly=9.99")
	}
	eachProfileOwn(t, own, func(t *testing.T, h *harness, srv *playtest.Server) {
		a := h.newUser("a@x.io")
		now := h.Clock.Now()
		token := "tok-" + a.ID
		srv.Put(token, playtest.Subscription("tandem.monthly", play.SubscriptionStateActive, now.Add(-time.Hour), now.AddDate(0, 1, 0)))
		expect(t, h.post(premiumPath(a), a.Token, buyOnPlay(token, "tandem.monthly")), 200, `{"success":true,"created":true}`)
		// Play now says revoked; only an authentic push may make us read it.
		srv.Put(token, playtest.Subscription("tandem.monthly", play.SubscriptionStateExpired, now.Add(-time.Hour), now.AddDate(0, 1, 0)))
		push := srv.PushBody("msg-r-"+a.ID, playNotice(play.SubscriptionRevoked, token, "tandem.monthly"))
		send := func(bearer string) response {
			return h.do(req{Method: "POST", Path: "/api/webhooks/google-play", Body: push,
				Headers: map[string]string{"Authorization": "Bearer " + bearer}})
		}
		later := time.Now().Add(time.Hour) // the OIDC expiry is checked against the wall clock
		for _, bad := range []string{
			srv.SignOIDC(aud, "attacker@evil-project.iam.gserviceaccount.com", later),
			srv.SignClaims(map[string]any{"iss": "https://accounts.google.com", "aud": aud, "email": pusher,
				"email_verified": false, "exp": later.Unix()}),
			srv.SignClaims(map[string]any{"iss": "https://accounts.google.com", "aud": aud, "exp": later.Unix()}),
		} {
			expect(t, send(bad), 401, `{"success":false,"error":"<string>","code":"unauthorized","message":"<string>"}`)
		}
		expect(t, h.premiumGet(a, "action=status"), 200, directPremium)
		expect(t, send(srv.SignOIDC(aud, pusher, later)), 200, `{"success":true,"type":"SUBSCRIPTION_REVOKED"}`)
		expect(t, h.premiumGet(a, "action=status"), 200, noPremium)
	})
}
