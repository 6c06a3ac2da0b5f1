package tests

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"tandem/adapters/purchases/appstore"
	"tandem/adapters/purchases/appstore/appstoretest"
)

const appBundle = "app.tandem.test"

// withAppStore verifies purchases against the test root (appstoretest's
// committed chain) in place of Apple's; trust is not listed.
func withAppStore(t *testing.T, signer *appstoretest.Signer) option {
	root := filepath.Join(t.TempDir(), "root.pem")
	if err := os.WriteFile(root, signer.RootPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	return withEnv("TANDEM_PURCHASES", "appstore?bundle="+appBundle+"&env=Production&root="+root+
		"&plan.tandem.monthly=9.99&plan.tandem.yearly=59.99")
}

// appleTx is a monthly auto-renewable subscription signed at signed.
func appleTx(original string, purchased, expires, signed time.Time) appstore.Transaction {
	return appstore.Transaction{TransactionID: original + "-" + strconv.FormatInt(signed.UnixMilli(), 10),
		OriginalTransactionID: original, BundleID: appBundle, ProductID: "tandem.monthly",
		PurchaseDate: purchased.UnixMilli(), OriginalPurchaseDate: purchased.UnixMilli(), ExpiresDate: expires.UnixMilli(),
		Type: appstore.TypeAutoRenewable, Environment: appstore.Production, SignedDate: signed.UnixMilli()}
}

func appleNotice(signer *appstoretest.Signer, uuid, kind, subtype string, tx appstore.Transaction, renewal *appstore.RenewalInfo,
	signed time.Time) []byte {
	data := &appstore.NotificationData{BundleID: appBundle, Environment: appstore.Production,
		SignedTransactionInfo: signer.Transaction(tx)}
	if renewal != nil {
		data.SignedRenewalInfo = signer.Renewal(*renewal)
	}
	return signer.Notification(appstore.NotificationPayload{NotificationType: kind, Subtype: subtype,
		NotificationUUID: uuid, Version: "2.0", SignedDate: signed.UnixMilli(), Data: data})
}

func appleWebhook(h *harness, body []byte) response {
	h.t.Helper()
	return h.do(req{Method: "POST", Path: "/api/webhooks/app-store", Body: body})
}

func TestPremiumAppStorePurchases(t *testing.T) {
	parallel(t)
	signer := appstoretest.New()
	stranger := appstoretest.Generate(appstoretest.PKI{}) // a chain under another root
	eachProfile(t, func(t *testing.T, h *harness) {
		a, b, c := h.newUser("a@x.io"), h.newUser("b@x.io"), h.newUser("c@x.io")
		h.pair(a, b)
		now := h.Clock.Now().Truncate(time.Millisecond)
		expiry := now.AddDate(0, 1, 0)
		original := "2000000" + strconv.FormatInt(now.UnixNano()%1e9, 10) + a.ID[:4]
		tx := appleTx(original, now.Add(-time.Hour), expiry, now)
		buy := func(jws string) map[string]any {
			return map[string]any{"action": "create", "signedTransactionInfo": jws, "plan": "lifetime",
				"endDate": now.AddDate(100, 0, 0).UnixMilli(), "startDate": now.UnixMilli()}
		}
		refused := func(r response, status int, code string) {
			t.Helper()
			expect(t, r, status, `{"success":false,"error":"<string>","code":"`+code+`","message":"<string>"}`)
		}

		// Forged, foreign and tampered transactions are refused; nothing is stored.
		wrongBundle, sandbox, refunded := tx, tx, tx
		wrongBundle.BundleID = "com.other.app"
		sandbox.Environment = appstore.Sandbox
		refunded.RevocationDate = now.UnixMilli()
		good := signer.Transaction(tx)
		for _, jws := range []string{stranger.Transaction(tx), signer.Transaction(wrongBundle), signer.Transaction(sandbox),
			signer.Transaction(refunded), good[:len(good)-4] + "AAAA", "not.a.jws"} {
			refused(h.post(premiumPath(a), a.Token, buy(jws)), 400, "invalid_purchase")
		}
		refused(h.post(premiumPath(a), a.Token, map[string]any{"action": "create", "plan": "lifetime",
			"startDate": now.UnixMilli(), "endDate": now.AddDate(100, 0, 0).UnixMilli()}), 400, "invalid_purchase")
		expect(t, h.premiumGet(a, "action=subscription"), 200, `{"success":true,"isPremium":false,"subscription":null}`)

		// The real one: Apple's dates and the configured plan, not the client's.
		expect(t, h.post(premiumPath(a), a.Token, buy(good)), 200, `{"success":true,"created":true}`)
		appleSub := func(end int64, premium bool, state string, renewed int64) string {
			return `{"success":true,"isPremium":` + bstr(premium) + `,"subscription":{"plan":"9.99","startDate":` +
				itoa(now.Add(-time.Hour).UnixMilli()) + `,"endDate":` + itoa(end) + `,"isActive":` + bstr(premium) +
				`,"isPartnerInherited":false,"billingId":"` + original + `","platform":"ios","lastRenewed":` + itoa(renewed) +
				`,"cancelled":false,"meta":{},"store":"appstore","state":"` + state + `"}}`
		}
		expect(t, h.premiumGet(a, "action=subscription"), 200, appleSub(expiry.UnixMilli(), true, "active", now.UnixMilli()))
		expect(t, h.premiumGet(b, "action=status"), 200,
			`{"isPremium":true,"source":"partner","partnerId":"`+a.ID+`","message":"premium shared by your partner"}`)

		// The same originalTransactionId from another account, even a newer transaction of it.
		refused(h.post(premiumPath(c), c.Token, buy(good)), 409, "purchase_in_use")
		refused(h.post(premiumPath(c), c.Token, buy(signer.Transaction(appleTx(original, now, expiry, now.Add(time.Second))))),
			409, "purchase_in_use")
		expect(t, h.premiumGet(c, "action=status"), 200, noPremium)

		// Renewal through the app's update: a newer signed transaction.
		h.Clock.Advance(time.Minute)
		longer := expiry.AddDate(0, 1, 0)
		expect(t, h.post(premiumPath(a), a.Token, map[string]any{"action": "update",
			"signedTransactionInfo": signer.Transaction(appleTx(original, now.Add(-time.Hour), longer, now.Add(time.Minute)))}),
			200, `{"success":true,"updated":true}`)
		renewedAt := h.Clock.Now().UnixMilli()
		expect(t, h.premiumGet(a, "action=subscription"), 200, appleSub(longer.UnixMilli(), true, "active", renewedAt))

		// Notifications: a forged one is refused and changes nothing.
		signedAt := now.Add(2 * time.Minute)
		forged := appleNotice(stranger, "uuid-0-"+a.ID, "REFUND", "", tx, nil, signedAt)
		refused(appleWebhook(h, forged), 400, "invalid_notification")
		refused(appleWebhook(h, []byte(`{"signedPayload":"x.y.z"}`)), 400, "invalid_notification")
		expect(t, h.premiumGet(a, "action=status"), 200, directPremium)

		// Billing trouble: grace keeps premium until its end, then expiry ends it.
		grace := longer.Add(6 * 24 * time.Hour)
		renewal := &appstore.RenewalInfo{OriginalTransactionID: original, GracePeriodExpiresDate: grace.UnixMilli(),
			IsInBillingRetryPeriod: true, SignedDate: signedAt.UnixMilli()}
		lastTx := appleTx(original, now.Add(-time.Hour), longer, signedAt)
		expect(t, appleWebhook(h, appleNotice(signer, "uuid-1-"+a.ID, "DID_FAIL_TO_RENEW", "GRACE_PERIOD", lastTx, renewal, signedAt)),
			200, `{"success":true,"type":"DID_FAIL_TO_RENEW/GRACE_PERIOD"}`)
		h.Clock.Set(longer.Add(time.Hour)) // past the expiry, within the grace period
		expect(t, h.premiumGet(a, "action=subscription"), 200, appleSub(grace.UnixMilli(), true, "grace", renewedAt))

		// A refund ends premium at once, for both partners; redelivery is harmless.
		refundAt := signedAt.Add(time.Minute)
		refundTx := lastTx
		refundTx.RevocationDate, refundTx.SignedDate = h.Clock.Now().Add(-time.Minute).UnixMilli(), refundAt.UnixMilli()
		refund := appleNotice(signer, "uuid-2-"+a.ID, "REFUND", "", refundTx, nil, refundAt)
		expect(t, appleWebhook(h, refund), 200, `{"success":true,"type":"REFUND"}`)
		expect(t, h.premiumGet(a, "action=status"), 200, noPremium)
		expect(t, h.premiumGet(b, "action=status"), 200, noPremium)
		expect(t, appleWebhook(h, refund), 200, "")

		// A late notification signed before the refund changes nothing.
		late := appleNotice(signer, "uuid-3-"+a.ID, "DID_RENEW", "", appleTx(original, now, grace.AddDate(0, 1, 0), signedAt),
			nil, signedAt)
		expect(t, appleWebhook(h, late), 200, `{"success":true,"type":"DID_RENEW"}`)
		expect(t, h.premiumGet(a, "action=status"), 200, noPremium)

		// The refund reversed: premium again, from Apple's statement.
		reversedAt := refundAt.Add(time.Minute)
		back := appleTx(original, now, grace.AddDate(0, 1, 0), reversedAt)
		expect(t, appleWebhook(h, appleNotice(signer, "uuid-4-"+a.ID, "REFUND_REVERSED", "", back, nil, reversedAt)), 200,
			`{"success":true,"type":"REFUND_REVERSED"}`)
		expect(t, h.premiumGet(a, "action=status"), 200, directPremium)

		// Google Play is not configured here.
		refused(h.do(req{Method: "POST", Path: "/api/webhooks/google-play", Body: []byte(`{}`)}), 404, "not_found")
	}, withAppStore(t, signer))
}

// appAccountToken, which the app sets at purchase to the buyer's id, binds
// the transaction to that account: sent by another, it is refused and
// nothing is stored; the buyer's own (in Swift's upper case) is accepted.
func TestPremiumAppStoreAppAccountTokenIsTheBuyer(t *testing.T) {
	parallel(t)
	signer := appstoretest.New()
	eachProfile(t, func(t *testing.T, h *harness) {
		a, c := h.newUser("a@x.io"), h.newUser("c@x.io")
		now := h.Clock.Now().Truncate(time.Millisecond)
		tx := appleTx("3000000"+a.ID[:8], now.Add(-time.Hour), now.AddDate(0, 1, 0), now)
		tx.AppAccountToken = strings.ToUpper(a.ID)
		buy := map[string]any{"action": "create", "signedTransactionInfo": signer.Transaction(tx)}

		// c got hold of a's transaction before a sent it: no account holds
		// it yet, only the token says whose it is.
		expect(t, h.post(premiumPath(c), c.Token, buy), 409,
			`{"success":false,"error":"<string>","code":"purchase_in_use","message":"<string>"}`)
		expect(t, h.premiumGet(c, "action=subscription"), 200, `{"success":true,"isPremium":false,"subscription":null}`)

		expect(t, h.post(premiumPath(a), a.Token, buy), 200, `{"success":true,"created":true}`)
		expect(t, h.premiumGet(a, "action=status"), 200, directPremium)
		expect(t, h.premiumGet(c, "action=status"), 200, noPremium)
	}, withAppStore(t, signer))
}
