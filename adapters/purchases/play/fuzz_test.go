package play_test

import (
	"context"
	"testing"

	"tandem/adapters/purchases/play"
	"tandem/adapters/purchases/play/playtest"
	"tandem/core"
	"tandem/modules/premium"
)

// FuzzNotificationBody feeds arbitrary push bodies past the secret check:
// decoding never panics, a refusal is invalid_notification (or unavailable
// when the fake API was asked and could not answer), and an accepted push
// names its message and never carries a token as the store reference.
func FuzzNotificationBody(f *testing.F) {
	srv := playtest.New(f)
	srv.Put("tok", playtest.Subscription(product, play.SubscriptionStateActive, start, expiry))
	for _, n := range []play.DeveloperNotification{
		subscriptionNote(play.SubscriptionRenewed, "tok"),
		subscriptionNote(play.SubscriptionRevoked, "nope"),
		voidedNote(play.ProductTypeSubscription, "tok"),
		voidedNote(play.ProductTypeSubscription, "gone"),
		voidedNote(play.ProductTypeOneTime, "tok"),
		developer(func(n *play.DeveloperNotification) { n.TestNotification = &play.TestNotification{} }),
	} {
		f.Add(srv.PushBody("m-1", n))
	}
	f.Add(playtest.PushBody("m-1", "e30="))
	f.Add([]byte(`{"message":{"data":null,"messageId":7}}`))
	f.Add([]byte(`{}`))
	v, err := play.New(play.Config{Package: playtest.Package, Credentials: srv.Credentials(),
		Endpoint: srv.URL(), PushSecret: secret})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		ev, err := v.Notification(context.Background(), premium.Notification{Body: body, Secret: secret})
		if err != nil {
			if e := core.As(err); e.Code != "invalid_notification" && e.Kind != core.KindUnavailable {
				t.Fatalf("err = %v, want invalid_notification", err)
			}
			return
		}
		if ev.ID == "" || ev.Type == "" {
			t.Fatalf("accepted without id or type: %+v", ev)
		}
		if p := ev.Purchase; p != nil && (len(p.StoreRef) != 64 || p.Store != premium.StorePlay) {
			t.Fatalf("purchase %+v", p)
		}
	})
}
