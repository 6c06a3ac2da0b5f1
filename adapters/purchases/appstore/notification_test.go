package appstore_test

import (
	"encoding/json"
	"testing"
	"time"

	"tandem/adapters/purchases/appstore"
	"tandem/adapters/purchases/appstore/appstoretest"
	"tandem/modules/premium"
)

var (
	notifiedAt = signedAt.Add(time.Hour) // the notification's signedDate, later than the transaction's
	grace      = expires.Add(16 * 24 * time.Hour)
)

const uuid = "002e14d5-51f5-4503-b5a8-c3a1af68eb20"

// notice is a notification about tx (and renewal info when r is not nil),
// signed by signer unless a test signs the parts itself.
func notice(typ, subtype string, tx appstore.Transaction, r *appstore.RenewalInfo) appstore.NotificationPayload {
	n := appstore.NotificationPayload{NotificationType: typ, Subtype: subtype, NotificationUUID: uuid, Version: "2.0",
		SignedDate: notifiedAt.UnixMilli(), Data: &appstore.NotificationData{BundleID: bundle,
			Environment: appstore.Production, SignedTransactionInfo: signer.Transaction(tx), Status: 1}}
	if r != nil {
		n.Data.SignedRenewalInfo = signer.Renewal(*r)
	}
	return n
}

func renewal(change ...func(*appstore.RenewalInfo)) *appstore.RenewalInfo {
	r := &appstore.RenewalInfo{OriginalTransactionID: "2000000000000001", AutoRenewStatus: 1, SignedDate: signedAt.UnixMilli()}
	for _, c := range change {
		c(r)
	}
	return r
}

// notified is active() as a notification reports it: signed when the
// notification was.
func notified(change func(p *premium.Purchase)) *premium.Purchase {
	p := active()
	p.SignedAt = notifiedAt
	change(&p)
	return &p
}

func TestNotification(t *testing.T) {
	t.Parallel()
	type row struct {
		name     string
		body     []byte
		wantType string
		want     *premium.Purchase // nil: no purchase
	}
	unchanged := func(*premium.Purchase) {}
	var cases []row
	for _, typ := range []string{"SUBSCRIBED", "DID_RENEW", "OFFER_REDEEMED", "DID_CHANGE_RENEWAL_PREF",
		"DID_CHANGE_RENEWAL_STATUS", "PRICE_INCREASE", "RENEWAL_EXTENDED", "REFUND_REVERSED", "REFUND_DECLINED",
		"CONSUMPTION_REQUEST", "SOMETHING_APPLE_ADDS_LATER"} {
		cases = append(cases, row{name: typ + " keeps the transaction's state",
			body: signer.Notification(notice(typ, "", sub(), renewal())), wantType: typ, want: notified(unchanged)})
	}
	revokedTx := sub(func(t *appstore.Transaction) { t.RevocationDate = revoked.UnixMilli() })
	cases = append(cases, []row{
		{name: "subtype joins the type",
			body:     signer.Notification(notice("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", sub(), renewal())),
			wantType: "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED", want: notified(unchanged)},
		{name: "no renewal info is fine", body: signer.Notification(notice("SUBSCRIBED", "INITIAL_BUY", sub(), nil)),
			wantType: "SUBSCRIBED/INITIAL_BUY", want: notified(unchanged)},
		{name: "a revoked transaction stays revoked", body: signer.Notification(notice("DID_RENEW", "", revokedTx, nil)),
			wantType: "DID_RENEW",
			want:     notified(func(p *premium.Purchase) { p.State, p.EndDate = premium.StateRevoked, revoked })},
		{name: "grace period ends at the grace expiry",
			body: signer.Notification(notice("DID_FAIL_TO_RENEW", "GRACE_PERIOD", sub(),
				renewal(func(r *appstore.RenewalInfo) {
					r.GracePeriodExpiresDate, r.IsInBillingRetryPeriod = grace.UnixMilli(), true
				}))),
			wantType: "DID_FAIL_TO_RENEW/GRACE_PERIOD",
			want:     notified(func(p *premium.Purchase) { p.State, p.EndDate = premium.StateGrace, grace })},
		{name: "grace expiry before the expiry keeps the expiry",
			body: signer.Notification(notice("DID_FAIL_TO_RENEW", "GRACE_PERIOD", sub(),
				renewal(func(r *appstore.RenewalInfo) { r.GracePeriodExpiresDate = bought.UnixMilli() }))),
			wantType: "DID_FAIL_TO_RENEW/GRACE_PERIOD",
			want:     notified(func(p *premium.Purchase) { p.State = premium.StateGrace })},
		{name: "grace period without renewal info keeps the expiry",
			body:     signer.Notification(notice("DID_FAIL_TO_RENEW", "GRACE_PERIOD", sub(), nil)),
			wantType: "DID_FAIL_TO_RENEW/GRACE_PERIOD",
			want:     notified(func(p *premium.Purchase) { p.State = premium.StateGrace })},
		{name: "failed renewal without grace is billing retry",
			body: signer.Notification(notice("DID_FAIL_TO_RENEW", "", sub(),
				renewal(func(r *appstore.RenewalInfo) { r.IsInBillingRetryPeriod = true }))),
			wantType: "DID_FAIL_TO_RENEW",
			want:     notified(func(p *premium.Purchase) { p.State = premium.StateBillingRetry })},
		{name: "expired", body: signer.Notification(notice("EXPIRED", "VOLUNTARY", sub(), renewal())),
			wantType: "EXPIRED/VOLUNTARY", want: notified(func(p *premium.Purchase) { p.State = premium.StateExpired })},
		{name: "expired after billing retry", body: signer.Notification(notice("EXPIRED", "BILLING_RETRY", sub(), renewal())),
			wantType: "EXPIRED/BILLING_RETRY", want: notified(func(p *premium.Purchase) { p.State = premium.StateExpired })},
		{name: "grace period expired", body: signer.Notification(notice("GRACE_PERIOD_EXPIRED", "", sub(), renewal())),
			wantType: "GRACE_PERIOD_EXPIRED", want: notified(func(p *premium.Purchase) { p.State = premium.StateExpired })},
		{name: "refund ends at the revocation", body: signer.Notification(notice("REFUND", "", revokedTx, nil)),
			wantType: "REFUND", want: notified(func(p *premium.Purchase) { p.State, p.EndDate = premium.StateRevoked, revoked })},
		{name: "revoke without a revocation date ends when signed", body: signer.Notification(notice("REVOKE", "", sub(), nil)),
			wantType: "REVOKE", want: notified(func(p *premium.Purchase) { p.State, p.EndDate = premium.StateRevoked, notifiedAt })},
		{name: "test notification has no purchase", body: signer.Notification(appstore.NotificationPayload{NotificationType: "TEST",
			NotificationUUID: uuid, SignedDate: notifiedAt.UnixMilli(),
			Data: &appstore.NotificationData{BundleID: bundle, Environment: appstore.Production}}), wantType: "TEST"},
		{name: "renewal extension summary has no purchase", body: signer.Notification(appstore.NotificationPayload{
			NotificationType: "RENEWAL_EXTENSION", Subtype: "SUMMARY", NotificationUUID: uuid, SignedDate: notifiedAt.UnixMilli(),
			Summary: &appstore.NotificationSummary{BundleID: bundle, Environment: appstore.Production}}),
			wantType: "RENEWAL_EXTENSION/SUMMARY"},
		{name: "external purchase token has no purchase", body: signer.Notification(appstore.NotificationPayload{
			NotificationType: "EXTERNAL_PURCHASE_TOKEN", Subtype: "UNREPORTED", NotificationUUID: uuid,
			SignedDate: notifiedAt.UnixMilli()}), wantType: "EXTERNAL_PURCHASE_TOKEN/UNREPORTED"},
		{name: "a consumable's notification has no purchase",
			body: signer.Notification(notice("CONSUMPTION_REQUEST", "", sub(func(t *appstore.Transaction) {
				t.Type, t.ExpiresDate = appstore.TypeConsumable, 0
			}), nil)), wantType: "CONSUMPTION_REQUEST"},
	}...)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ev, err := newVerifier(t, nil).Notification(t.Context(), tc.body)
			if err != nil {
				t.Fatal(err)
			}
			if ev.ID != uuid || ev.Type != tc.wantType {
				t.Errorf("event %q %q, want %q %q", ev.ID, ev.Type, uuid, tc.wantType)
			}
			switch {
			case tc.want == nil && ev.Purchase != nil:
				t.Errorf("purchase %+v, want none", *ev.Purchase)
			case tc.want != nil && ev.Purchase == nil:
				t.Errorf("no purchase, want %+v", *tc.want)
			case tc.want != nil && *ev.Purchase != *tc.want:
				t.Errorf("got  %+v\nwant %+v", *ev.Purchase, *tc.want)
			}
		})
	}
}

func TestNotificationRefused(t *testing.T) {
	t.Parallel()
	other := appstoretest.Generate(appstoretest.PKI{})
	cases := []struct {
		name    string
		body    []byte
		wantMsg string
	}{
		{name: "bad outer signature", body: bodyOf(tamper(payloadOf(signer.Notification(notice("DID_RENEW", "", sub(), nil))), 1)),
			wantMsg: "signature does not verify"},
		{name: "outer JWS under another root", body: other.Notification(notice("DID_RENEW", "", sub(), nil)),
			wantMsg: "certificate chain does not lead to the Apple root"},
		{name: "another app's notification", body: signer.Notification(change(notice("DID_RENEW", "", sub(), nil),
			func(n *appstore.NotificationPayload) { n.Data.BundleID = "com.other.app" })),
			wantMsg: `bundle id "com.other.app" is not this app's`},
		{name: "another app's summary", body: signer.Notification(appstore.NotificationPayload{NotificationType: "RENEWAL_EXTENSION",
			Subtype: "SUMMARY", NotificationUUID: uuid, SignedDate: notifiedAt.UnixMilli(),
			Summary: &appstore.NotificationSummary{BundleID: "com.other.app", Environment: appstore.Production}}),
			wantMsg: `bundle id "com.other.app" is not this app's`},
		{name: "sandbox notification in production", body: signer.Notification(change(notice("DID_RENEW", "", sub(), nil),
			func(n *appstore.NotificationPayload) { n.Data.Environment = appstore.Sandbox })),
			wantMsg: "a Sandbox notification in Production"},
		{name: "inner transaction under another root", body: signer.Notification(change(notice("DID_RENEW", "", sub(), nil),
			func(n *appstore.NotificationPayload) { n.Data.SignedTransactionInfo = other.Transaction(sub()) })),
			wantMsg: "signedTransactionInfo: certificate chain does not lead to the Apple root"},
		{name: "inner renewal info under another root", body: signer.Notification(change(notice("DID_RENEW", "", sub(), nil),
			func(n *appstore.NotificationPayload) { n.Data.SignedRenewalInfo = other.Renewal(*renewal()) })),
			wantMsg: "signedRenewalInfo: certificate chain does not lead to the Apple root"},
		{name: "inner transaction of another app", body: signer.Notification(notice("DID_RENEW", "",
			sub(func(t *appstore.Transaction) { t.BundleID = "com.other.app" }), nil)),
			wantMsg: `signedTransactionInfo: bundle id "com.other.app" is not this app's`},
		{name: "renewal info of another subscription", body: signer.Notification(notice("DID_RENEW", "", sub(),
			renewal(func(r *appstore.RenewalInfo) { r.OriginalTransactionID = "1000000000000009" }))),
			wantMsg: "signedRenewalInfo is about another subscription"},
		{name: "renewal info that is not JSON", body: signer.Notification(change(notice("DID_RENEW", "", sub(), nil),
			func(n *appstore.NotificationPayload) { n.Data.SignedRenewalInfo = "garbage" })),
			wantMsg: "signedRenewalInfo: not a compact JWS"},
		{name: "missing notificationUUID", body: signer.Notification(change(notice("DID_RENEW", "", sub(), nil),
			func(n *appstore.NotificationPayload) { n.NotificationUUID = "" })),
			wantMsg: "notificationUUID and notificationType are required"},
		{name: "missing notificationType", body: signer.Notification(change(notice("DID_RENEW", "", sub(), nil),
			func(n *appstore.NotificationPayload) { n.NotificationType = "" })),
			wantMsg: "notificationUUID and notificationType are required"},
		{name: "body not JSON", body: []byte("signedPayload=x"), wantMsg: `the body is not {"signedPayload": ...}`},
		{name: "body without signedPayload", body: []byte(`{"payload":"x"}`), wantMsg: "signedPayload is required"},
		{name: "signedPayload not a JWS", body: bodyOf("x"), wantMsg: "not a compact JWS"},
		{name: "payload not a notification", body: bodyOf(signer.Sign(map[string]any{"signedDate": notifiedAt.UnixMilli(), "data": "x"})),
			wantMsg: "the payload is not a notification"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := newVerifier(t, nil).Notification(t.Context(), tc.body)
			wantRefusal(t, err, "invalid_notification", tc.wantMsg)
		})
	}
}

func change(n appstore.NotificationPayload, f func(*appstore.NotificationPayload)) appstore.NotificationPayload {
	f(&n)
	return n
}

func bodyOf(signedPayload string) []byte {
	b, _ := json.Marshal(map[string]string{"signedPayload": signedPayload})
	return b
}

func payloadOf(body []byte) string {
	var b struct{ SignedPayload string }
	_ = json.Unmarshal(body, &b)
	return b.SignedPayload
}
