package appstore

import (
	"context"
	"encoding/json"

	"tandem/modules/premium"
)

// Notification verifies an App Store Server Notification V2 request body,
// {"signedPayload": "<JWS>"}: the outer JWS, its app, then the transaction
// and renewal info inside, each under the same chain rules. Refusals are
// core.KindInvalid with code invalid_notification.
func (v *Verifier) Notification(_ context.Context, body []byte) (premium.StoreEvent, error) {
	ev, err := v.notification(body)
	if err != nil {
		return premium.StoreEvent{}, refuse(codeNotification, err)
	}
	return ev, nil
}

func (v *Verifier) notification(body []byte) (premium.StoreEvent, error) {
	n, err := v.notificationPayload(body)
	if err != nil {
		return premium.StoreEvent{}, err
	}
	ev := premium.StoreEvent{ID: n.NotificationUUID, Type: n.NotificationType}
	if n.Subtype != "" {
		ev.Type += "/" + n.Subtype
	}
	// TEST, summaries and external purchase tokens are about no subscription.
	if n.NotificationType == "TEST" || n.Data == nil || n.Data.SignedTransactionInfo == "" {
		return ev, nil
	}
	t, r, err := v.signedItems(n.Data)
	if err != nil {
		return premium.StoreEvent{}, err
	}
	// A consumable is never stored, so no account can hold it: refusing
	// would only make Apple resend a genuine notification for days.
	if t.Type == TypeConsumable {
		return ev, nil
	}
	p, err := v.purchase(t)
	if err != nil {
		return premium.StoreEvent{}, within("signedTransactionInfo", err)
	}
	p.SignedAt = millis(n.SignedDate) // the statement's time, which orders late arrivals
	byType(&p, n, t, r)
	ev.Purchase = &p
	return ev, nil
}

func (v *Verifier) notificationPayload(body []byte) (NotificationPayload, error) {
	var b struct {
		SignedPayload string `json:"signedPayload"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return NotificationPayload{}, failWrap(err, "appstore.bodyNotSignedPayload", "the body is not {\"signedPayload\": ...}")
	}
	if b.SignedPayload == "" {
		return NotificationPayload{}, fail("appstore.signedPayloadRequired", "signedPayload is required")
	}
	raw, err := verifyJWS(b.SignedPayload, v.roots)
	if err != nil {
		return NotificationPayload{}, err
	}
	var n NotificationPayload
	if err := json.Unmarshal(raw, &n); err != nil {
		return NotificationPayload{}, failWrap(err, "appstore.payloadNotNotification", "the payload is not a notification")
	}
	if n.NotificationUUID == "" || n.NotificationType == "" {
		return NotificationPayload{}, fail("appstore.notificationUUIDNotificationTypeRequired", "notificationUUID and notificationType are required")
	}
	if n.Data != nil {
		err = v.checkApp(n.Data.BundleID, n.Data.Environment, true)
	} else if n.Summary != nil {
		err = v.checkApp(n.Summary.BundleID, n.Summary.Environment, true)
	}
	return n, err
}

// signedItems verifies the transaction and, when present, the renewal info,
// which must be about the same subscription.
func (v *Verifier) signedItems(d *NotificationData) (Transaction, RenewalInfo, error) {
	t, err := v.transaction(d.SignedTransactionInfo)
	if err != nil {
		return Transaction{}, RenewalInfo{}, within("signedTransactionInfo", err)
	}
	if d.SignedRenewalInfo == "" {
		return t, RenewalInfo{}, nil
	}
	r, err := v.renewal(d.SignedRenewalInfo)
	if err != nil {
		return Transaction{}, RenewalInfo{}, within("signedRenewalInfo", err)
	}
	if r.OriginalTransactionID != "" && r.OriginalTransactionID != t.OriginalTransactionID {
		return Transaction{}, RenewalInfo{}, fail("appstore.signedRenewalInfoAboutAnotherSubscription", "signedRenewalInfo is about another subscription")
	}
	return t, r, nil
}

func (v *Verifier) renewal(jws string) (RenewalInfo, error) {
	payload, err := verifyJWS(jws, v.roots)
	if err != nil {
		return RenewalInfo{}, err
	}
	var r RenewalInfo
	if err := json.Unmarshal(payload, &r); err != nil {
		return RenewalInfo{}, failWrap(err, "appstore.payloadNotRenewalInfo", "the payload is not renewal info")
	}
	return r, nil
}

// byType sets what the notification says happened. Types not named here
// (SUBSCRIBED, DID_RENEW, REFUND_REVERSED, ..., and any Apple adds) keep the
// transaction's own state: active, or revoked when it carries a revocation.
func byType(p *premium.Purchase, n NotificationPayload, t Transaction, r RenewalInfo) {
	switch n.NotificationType {
	case "REFUND", "REVOKE":
		p.State, p.EndDate = premium.StateRevoked, millis(n.SignedDate)
		if t.RevocationDate > 0 {
			p.EndDate = millis(t.RevocationDate)
		}
		return
	}
	if p.State == premium.StateRevoked { // a revocation outranks any later news of the subscription
		return
	}
	switch n.NotificationType {
	case "DID_FAIL_TO_RENEW":
		if n.Subtype != "GRACE_PERIOD" {
			p.State = premium.StateBillingRetry
			return
		}
		p.State = premium.StateGrace
		if g := millis(r.GracePeriodExpiresDate); r.GracePeriodExpiresDate > 0 && g.After(p.EndDate) {
			p.EndDate = g
		}
	case "EXPIRED", "GRACE_PERIOD_EXPIRED":
		p.State = premium.StateExpired
	}
}
