package play

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"tandem/core"
	"tandem/modules/premium"
)

// maxMessageID bounds the Pub/Sub message id, which becomes a stored event id.
const maxMessageID = 128

// Notification authenticates a Pub/Sub push of a real-time developer
// notification and says what it means. A subscription notification only
// says that something changed, so the subscription is read back from the
// API (and acknowledged) exactly as Verify reads it.
func (v *Verifier) Notification(ctx context.Context, n premium.Notification) (premium.StoreEvent, error) {
	if err := v.authenticate(ctx, n); err != nil {
		return premium.StoreEvent{}, err
	}
	m, err := v.decode(n.Body)
	if err != nil {
		return premium.StoreEvent{}, err
	}
	ev, err := v.event(ctx, m)
	if err != nil {
		return premium.StoreEvent{}, err
	}
	ev.ID = m.id
	return ev, nil
}

// message is a decoded push: its Pub/Sub id, Play's notification and the
// notification's event time.
type message struct {
	id string
	n  DeveloperNotification
	at time.Time
}

// pushBody is a Pub/Sub push request's body.
type pushBody struct {
	Message struct {
		Data      string `json:"data"`
		MessageID string `json:"messageId"`
	} `json:"message"`
	Subscription string `json:"subscription"`
}

func (v *Verifier) decode(body []byte) (message, error) {
	var push pushBody
	if err := json.Unmarshal(body, &push); err != nil {
		return message{}, badNotification("play.bodyNotPubSubPush", "the body is not a Pub/Sub push").Wrap(err)
	}
	id := push.Message.MessageID
	if id == "" || len(id) > maxMessageID || core.CheckText("messageId", id, false) != nil {
		return message{}, badNotification("play.messageMessageIdMissingMalformed", "message.messageId is missing or malformed")
	}
	data, err := base64.StdEncoding.DecodeString(push.Message.Data)
	if err != nil {
		return message{}, badNotification("play.messageDataNotBase64", "message.data is not base64").Wrap(err)
	}
	var dn DeveloperNotification
	if err := json.Unmarshal(data, &dn); err != nil {
		return message{}, badNotification("play.messageDataNotDeveloperNotification", "message.data is not a developer notification").Wrap(err)
	}
	if dn.PackageName != v.pkg {
		return message{}, badNotification("play.notificationAnotherApp", "the notification is for another app")
	}
	ms, err := strconv.ParseInt(dn.EventTimeMillis, 10, 64)
	if err != nil || ms <= 0 {
		return message{}, badNotification("play.eventTimeMillisMalformed", "eventTimeMillis is malformed")
	}
	return message{id: id, n: dn, at: core.FromMillis(ms)}, nil
}

// event says what a decoded notification means for a subscription.
func (v *Verifier) event(ctx context.Context, m message) (premium.StoreEvent, error) {
	switch n := m.n; {
	case n.SubscriptionNotification != nil:
		return v.subscriptionEvent(ctx, *n.SubscriptionNotification)
	case n.VoidedPurchaseNotification != nil:
		return v.voidedEvent(ctx, *n.VoidedPurchaseNotification, m.at)
	case n.TestNotification != nil:
		return premium.StoreEvent{Type: "TEST"}, nil
	case n.OneTimeProductNotification != nil:
		return premium.StoreEvent{Type: "ONE_TIME_PRODUCT"}, nil
	}
	// A kind Play added since: authentic, and about nothing we sell yet.
	// Refusing it would only make Pub/Sub redeliver it for a week.
	return premium.StoreEvent{Type: "UNKNOWN"}, nil
}

func (v *Verifier) subscriptionEvent(ctx context.Context, sn SubscriptionNotification) (premium.StoreEvent, error) {
	if !validToken(sn.PurchaseToken) || sn.SubscriptionID == "" {
		return premium.StoreEvent{}, badNotification("play.purchaseTokenSubscriptionIdRequired", "purchaseToken and subscriptionId are required")
	}
	p, err := v.read(ctx, sn.PurchaseToken, sn.SubscriptionID, "invalid_notification")
	if err != nil {
		return premium.StoreEvent{}, err
	}
	if sn.NotificationType == SubscriptionRevoked {
		// Play reports a revoked subscription as expired; revoked also
		// ends the access it had paid for.
		p.State = premium.StateRevoked
	}
	return premium.StoreEvent{Type: SubscriptionTypeName(sn.NotificationType), Purchase: &p}, nil
}

// voidedEvent revokes a refunded or charged-back subscription from the
// event time on, once Play confirms it: Play revokes a voided subscription,
// which its API then shows as expired, or forgets its token. One that Play
// still holds (active, in grace, paused...) is not revoked: a push proves
// who sent it, not that what it says is true. One-time products hold no
// premium.
func (v *Verifier) voidedEvent(ctx context.Context, vn VoidedPurchaseNotification, at time.Time) (premium.StoreEvent, error) {
	ev := premium.StoreEvent{Type: "VOIDED_PURCHASE"}
	if vn.ProductType != ProductTypeSubscription {
		return ev, nil
	}
	if !validToken(vn.PurchaseToken) {
		return premium.StoreEvent{}, badNotification("play.purchaseTokenRequired", "purchaseToken is required")
	}
	s, err := v.subscription(ctx, vn.PurchaseToken)
	var ae *apiError
	if err != nil && !(errors.As(err, &ae) && ae.unknown()) {
		return premium.StoreEvent{}, storeErr(err, "invalid_notification")
	}
	if err == nil && s.SubscriptionState != SubscriptionStateExpired {
		return ev, nil // not confirmed: nothing is revoked
	}
	// Play no longer knows the token (or shows an expired one we cannot
	// map), but the refund stands: the caller finds the stored subscription
	// by StoreRef and applies the revocation to it.
	p := premium.Purchase{Store: premium.StorePlay, StoreRef: ref(vn.PurchaseToken), SignedAt: at, EndDate: at}
	if err == nil {
		if read, err := v.toPurchase(s, vn.PurchaseToken, "", "invalid_notification"); err == nil {
			p = read
			if at.Before(p.EndDate) {
				p.EndDate = at
			}
		}
	}
	p.State = premium.StateRevoked
	ev.Purchase = &p
	return ev, nil
}

// validToken bounds a notification's purchase token as Proof.Validate
// bounds the app's.
func validToken(t string) bool { return t != "" && len(t) <= premium.MaxProof }

func badNotification(id, format string, args ...any) *core.Error {
	return core.Invalid("invalid_notification", id, format, args...)
}
