package play_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"tandem/adapters/purchases/play"
	"tandem/adapters/purchases/play/playtest"
	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/premium"
)

// eventTime is when the notifications below happened: before expiry.
var eventTime = time.Date(2025, 6, 14, 8, 30, 0, 0, time.UTC)

func developer(edit func(n *play.DeveloperNotification)) play.DeveloperNotification {
	n := play.DeveloperNotification{Version: "1.0", PackageName: playtest.Package,
		EventTimeMillis: strconv.FormatInt(eventTime.UnixMilli(), 10)}
	edit(&n)
	return n
}

func subscriptionNote(typ int, token string) play.DeveloperNotification {
	return developer(func(n *play.DeveloperNotification) {
		n.SubscriptionNotification = &play.SubscriptionNotification{Version: "1.0", NotificationType: typ,
			PurchaseToken: token, SubscriptionID: product}
	})
}

func voidedNote(productType int, token string) play.DeveloperNotification {
	return developer(func(n *play.DeveloperNotification) {
		n.VoidedPurchaseNotification = &play.VoidedPurchaseNotification{PurchaseToken: token,
			OrderID: "GPA.3300-1234-5678-90123", ProductType: productType, RefundType: 1}
	})
}

func push(srv *playtest.Server, n play.DeveloperNotification) premium.Notification {
	return premium.Notification{Store: premium.StorePlay, Body: srv.PushBody("m-1", n), Secret: secret}
}

func TestNotificationAuthentication(t *testing.T) {
	t.Parallel()
	srv := playtest.New(t)
	stranger := playtest.New(t)
	body := srv.PushBody("m-1", developer(func(n *play.DeveloperNotification) { n.TestNotification = &play.TestNotification{} }))
	v := newVerifier(t, srv, nil)
	secretOnly := newVerifier(t, srv, func(c *play.Config) { c.PushAudience = "" })
	neither := newVerifier(t, srv, func(c *play.Config) { c.PushSecret, c.PushAudience = "", "" })
	later := now.Add(time.Hour)
	signed := func(aud, email string, exp time.Time) string { return "Bearer " + srv.SignOIDC(aud, email, exp) }
	claims := func(edit func(c map[string]any)) string {
		c := map[string]any{"iss": "accounts.google.com", "aud": audience, "email": pusher,
			"email_verified": true, "exp": later.Unix()}
		edit(c)
		return "Bearer " + srv.SignClaims(c)
	}
	good := srv.SignOIDC(audience, pusher, later)
	parts := strings.Split(good, ".")
	tests := []struct {
		name   string
		v      *play.Verifier
		secret string
		auth   string
		want   string // "" accepted, else the error code
	}{
		{"secret", v, secret, "", ""},
		{"secret, no audience configured", secretOnly, secret, "", ""},
		{"wrong secret", secretOnly, "push-s3cre", "", "unauthorized"},
		{"secret with a suffix", secretOnly, secret + "x", "", "unauthorized"},
		{"no secret", secretOnly, "", "", "unauthorized"},
		{"nothing configured, nothing sent", neither, "", "", "unauthorized"},
		{"nothing configured, a token sent", neither, "", signed(audience, pusher, later), "unauthorized"},
		{"OIDC", v, "", signed(audience, pusher, later), ""},
		{"OIDC, lower-case scheme", v, "", "bearer " + good, ""},
		{"OIDC after a wrong secret", v, "wrong", signed(audience, pusher, later), ""},
		{"OIDC short issuer", v, "", claims(func(map[string]any) {}), ""},
		{"OIDC aud in a list", v, "", claims(func(c map[string]any) { c["aud"] = []string{"x", audience} }), ""},
		{"OIDC expired within leeway", v, "", signed(audience, pusher, now.Add(-30*time.Second)), ""},
		{"OIDC wrong audience", v, "", signed("https://evil.test/", pusher, later), "unauthorized"},
		{"OIDC expired", v, "", signed(audience, pusher, now.Add(-2*time.Minute)), "unauthorized"},
		{"OIDC no exp", v, "", claims(func(c map[string]any) { delete(c, "exp") }), "unauthorized"},
		{"OIDC wrong email", v, "", signed(audience, "someone@example.com", later), "unauthorized"},
		{"OIDC email unverified", v, "", claims(func(c map[string]any) { c["email_verified"] = false }), "unauthorized"},
		{"OIDC no email", v, "", claims(func(c map[string]any) { delete(c, "email") }), "unauthorized"},
		{"OIDC email in another case", v, "", signed(audience, strings.ToUpper(pusher), later), "unauthorized"},
		{"OIDC wrong issuer", v, "", claims(func(c map[string]any) { c["iss"] = "https://evil.test" }), "unauthorized"},
		{"OIDC wrong signer", v, "", "Bearer " + stranger.SignOIDC(audience, pusher, later), "unauthorized"},
		{"OIDC tampered claims", v, "", "Bearer " + parts[0] + "." +
			base64.RawURLEncoding.EncodeToString([]byte(`{"iss":"accounts.google.com","aud":"`+audience+
				`","email":"`+pusher+`","email_verified":true,"exp":9999999999}`)) + "." + parts[2], "unauthorized"},
		{"OIDC alg none", v, "", "Bearer " + base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","kid":"x"}`)) +
			"." + parts[1] + ".", "unauthorized"},
		{"OIDC without scheme", v, "", good, "unauthorized"},
		{"OIDC garbage", v, "", "Bearer a.b.c", "unauthorized"},
		{"nothing sent", v, "", "", "unauthorized"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := premium.Notification{Store: premium.StorePlay, Body: body, Secret: tc.secret, Authorization: tc.auth}
			ev, err := tc.v.Notification(context.Background(), n)
			if got := code(err); got != tc.want {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if tc.want == "unauthorized" && core.KindOf(err) != core.KindUnauthorized {
				t.Fatalf("kind %v", core.KindOf(err))
			}
			if err == nil && (ev.Type != "TEST" || ev.ID != "m-1") {
				t.Fatalf("event %+v", ev)
			}
		})
	}
}

func TestNotificationKeySetCaching(t *testing.T) {
	t.Parallel()
	srv := playtest.New(t)
	stranger := playtest.New(t)
	clock := coretest.NewClock(now)
	v := newVerifier(t, srv, func(c *play.Config) { c.PushSecret, c.Clock = "", clock.Now })
	body := srv.PushBody("m-1", developer(func(n *play.DeveloperNotification) { n.TestNotification = &play.TestNotification{} }))
	send := func(token string) error {
		_, err := v.Notification(context.Background(), premium.Notification{Body: body, Authorization: "Bearer " + token})
		return err
	}
	steps := []struct {
		name    string
		advance time.Duration
		token   func() string
		want    string
		fetches int
	}{
		{"first push fetches", 0, func() string { return srv.SignOIDC(audience, pusher, clock.Now().Add(time.Hour)) }, "", 1},
		{"cached", 0, func() string { return srv.SignOIDC(audience, pusher, clock.Now().Add(time.Hour)) }, "", 1},
		{"unknown kid, keys just fetched", 0, func() string { return stranger.SignOIDC(audience, pusher, now.Add(time.Hour)) }, "unauthorized", 1},
		{"unknown kid within the minute", 30 * time.Second, func() string { return stranger.SignOIDC(audience, pusher, now.Add(time.Hour)) }, "unauthorized", 1},
		{"unknown kid after a minute", 31 * time.Second, func() string { return stranger.SignOIDC(audience, pusher, now.Add(time.Hour)) }, "unauthorized", 2},
		{"stale after an hour", time.Hour, func() string { return srv.SignOIDC(audience, pusher, clock.Now().Add(time.Hour)) }, "", 3},
	}
	for _, st := range steps {
		clock.Set(clock.Now().Add(st.advance))
		if err := send(st.token()); code(err) != st.want {
			t.Fatalf("%s: err = %v, want %q", st.name, err, st.want)
		}
		if n := srv.CertsFetches(); n != st.fetches {
			t.Fatalf("%s: %d key fetches, want %d", st.name, n, st.fetches)
		}
	}
}

func TestNotificationKeysUnreachable(t *testing.T) {
	t.Parallel()
	srv := playtest.New(t)
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	v := newVerifier(t, srv, func(c *play.Config) { c.PushSecret, c.CertsURL = "", closed.URL })
	n := premium.Notification{Body: srv.PushBody("m-1", voidedNote(play.ProductTypeOneTime, "t")),
		Authorization: "Bearer " + srv.SignOIDC(audience, pusher, now.Add(time.Hour))}
	for range 2 { // the second, within the minute, does not refetch: still no verdict
		if _, err := v.Notification(context.Background(), n); core.KindOf(err) != core.KindUnavailable {
			t.Fatalf("err = %v, want unavailable", err)
		}
	}
}

func TestNotificationRefusesMalformed(t *testing.T) {
	t.Parallel()
	srv := playtest.New(t)
	v := newVerifier(t, srv, nil)
	test := func(n *play.DeveloperNotification) { n.TestNotification = &play.TestNotification{} }
	data := func(s string) []byte { return playtest.PushBody("m-1", base64.StdEncoding.EncodeToString([]byte(s))) }
	tests := []struct {
		name string
		body []byte
	}{
		{"empty body", nil},
		{"body not JSON", []byte("{")},
		{"body an array", []byte("[]")},
		{"no messageId", srv.PushBody("", developer(test))},
		{"messageId with a newline", srv.PushBody("m\n1", developer(test))},
		{"messageId too long", srv.PushBody(strings.Repeat("9", 129), developer(test))},
		{"data not base64", playtest.PushBody("m-1", "not base64!")},
		{"data URL-safe base64", playtest.PushBody("m-1", "-_-_")},
		{"data not JSON", data("hello")},
		{"data a string", data(`"x"`)},
		{"wrong package", srv.PushBody("m-1", developer(func(n *play.DeveloperNotification) {
			test(n)
			n.PackageName = "com.other.app"
		}))},
		{"no package", srv.PushBody("m-1", developer(func(n *play.DeveloperNotification) {
			test(n)
			n.PackageName = ""
		}))},
		{"eventTimeMillis not a number", srv.PushBody("m-1", developer(func(n *play.DeveloperNotification) {
			test(n)
			n.EventTimeMillis = "yesterday"
		}))},
		{"subscription without token", srv.PushBody("m-1", subscriptionNote(play.SubscriptionRenewed, ""))},
		{"subscription without product", srv.PushBody("m-1", developer(func(n *play.DeveloperNotification) {
			n.SubscriptionNotification = &play.SubscriptionNotification{NotificationType: 2, PurchaseToken: "tok"}
		}))},
		{"voided without token", srv.PushBody("m-1", voidedNote(play.ProductTypeSubscription, ""))},
		{"subscription unknown to Play", srv.PushBody("m-1", subscriptionNote(play.SubscriptionRenewed, "nope"))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := v.Notification(context.Background(), premium.Notification{Body: tc.body, Secret: secret})
			if e := core.As(err); e.Kind != core.KindInvalid || e.Code != "invalid_notification" {
				t.Fatalf("err = %v, want invalid_notification", err)
			}
		})
	}
}

func TestNotificationSubscriptionTypes(t *testing.T) {
	t.Parallel()
	srv := playtest.New(t)
	srv.Put("tok", playtest.Subscription(product, play.SubscriptionStateActive, start, expiry))
	v := newVerifier(t, srv, nil)
	tests := []struct {
		typ   int
		name  string
		state premium.State
	}{
		{play.SubscriptionRecovered, "SUBSCRIPTION_RECOVERED", premium.StateActive},
		{play.SubscriptionRenewed, "SUBSCRIPTION_RENEWED", premium.StateActive},
		{play.SubscriptionCanceled, "SUBSCRIPTION_CANCELED", premium.StateActive},
		{play.SubscriptionPurchased, "SUBSCRIPTION_PURCHASED", premium.StateActive},
		{play.SubscriptionOnHold, "SUBSCRIPTION_ON_HOLD", premium.StateActive},
		{play.SubscriptionInGracePeriod, "SUBSCRIPTION_IN_GRACE_PERIOD", premium.StateActive},
		{play.SubscriptionRestarted, "SUBSCRIPTION_RESTARTED", premium.StateActive},
		{play.SubscriptionPriceChangeConfirmed, "SUBSCRIPTION_PRICE_CHANGE_CONFIRMED", premium.StateActive},
		{play.SubscriptionDeferred, "SUBSCRIPTION_DEFERRED", premium.StateActive},
		{play.SubscriptionPaused, "SUBSCRIPTION_PAUSED", premium.StateActive},
		{play.SubscriptionPauseScheduleChanged, "SUBSCRIPTION_PAUSE_SCHEDULE_CHANGED", premium.StateActive},
		{play.SubscriptionRevoked, "SUBSCRIPTION_REVOKED", premium.StateRevoked},
		{play.SubscriptionExpired, "SUBSCRIPTION_EXPIRED", premium.StateActive},
		{play.SubscriptionPendingPurchaseCanceled, "SUBSCRIPTION_PENDING_PURCHASE_CANCELED", premium.StateActive},
		{42, "SUBSCRIPTION_42", premium.StateActive},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// The state is the API's (ACTIVE here), whatever the type says;
			// only a revocation overrides it.
			ev, err := v.Notification(context.Background(), push(srv, subscriptionNote(tc.typ, "tok")))
			if err != nil {
				t.Fatalf("Notification: %v", err)
			}
			want := paid("tok")
			want.State = tc.state
			if ev.ID != "m-1" || ev.Type != tc.name || ev.Purchase == nil || *ev.Purchase != want {
				t.Fatalf("got %+v %+v\nwant type %s, %+v", ev, ev.Purchase, tc.name, want)
			}
		})
	}
	if srv.Acks("tok") != 1 {
		t.Fatalf("acks = %d: the re-read acknowledges a pending purchase once", srv.Acks("tok"))
	}
}

func TestNotificationReadsTheCurrentState(t *testing.T) {
	t.Parallel()
	srv := playtest.New(t)
	srv.Put("tok", playtest.Subscription(product, play.SubscriptionStateOnHold, start, expiry))
	ev, err := newVerifier(t, srv, nil).Notification(context.Background(),
		push(srv, subscriptionNote(play.SubscriptionOnHold, "tok")))
	if err != nil || ev.Purchase == nil || ev.Purchase.State != premium.StateOnHold {
		t.Fatalf("got %+v, %v; want on hold", ev, err)
	}
}

func TestNotificationVoided(t *testing.T) {
	t.Parallel()
	srv := playtest.New(t)
	srv.Put("tok", playtest.Subscription(product, play.SubscriptionStateExpired, start, expiry))
	for _, state := range []string{play.SubscriptionStateActive, play.SubscriptionStateCanceled,
		play.SubscriptionStateInGracePeriod, play.SubscriptionStateOnHold, play.SubscriptionStatePaused} {
		srv.Put("held-"+state, playtest.Subscription(product, state, start, expiry))
	}
	v := newVerifier(t, srv, nil)
	known := paid("tok")
	known.State, known.EndDate = premium.StateRevoked, eventTime // the refund ends it at the event
	gone := premium.Purchase{Store: premium.StorePlay, StoreRef: ref("gone"), State: premium.StateRevoked,
		SignedAt: eventTime, EndDate: eventTime}
	tests := []struct {
		name string
		n    play.DeveloperNotification
		want *premium.Purchase
	}{
		{"subscription Play shows", voidedNote(play.ProductTypeSubscription, "tok"), &known},
		{"subscription Play forgot", voidedNote(play.ProductTypeSubscription, "gone"), &gone},
		{"one-time product", voidedNote(play.ProductTypeOneTime, "tok"), nil},
		// a forged (or premature) notice: Play still holds the subscription
		{"subscription Play shows active", voidedNote(play.ProductTypeSubscription, "held-"+play.SubscriptionStateActive), nil},
		{"subscription Play shows canceled", voidedNote(play.ProductTypeSubscription, "held-"+play.SubscriptionStateCanceled), nil},
		{"subscription Play shows in grace", voidedNote(play.ProductTypeSubscription, "held-"+play.SubscriptionStateInGracePeriod), nil},
		{"subscription Play shows on hold", voidedNote(play.ProductTypeSubscription, "held-"+play.SubscriptionStateOnHold), nil},
		{"subscription Play shows paused", voidedNote(play.ProductTypeSubscription, "held-"+play.SubscriptionStatePaused), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := v.Notification(context.Background(), push(srv, tc.n))
			if err != nil {
				t.Fatalf("Notification: %v", err)
			}
			if ev.Type != "VOIDED_PURCHASE" || (ev.Purchase == nil) != (tc.want == nil) ||
				(tc.want != nil && *ev.Purchase != *tc.want) {
				t.Fatalf("got %+v %+v\nwant %+v", ev, ev.Purchase, tc.want)
			}
		})
	}
}

func TestNotificationWithoutSubscription(t *testing.T) {
	t.Parallel()
	srv := playtest.New(t)
	v := newVerifier(t, srv, nil)
	tests := []struct {
		name string
		edit func(n *play.DeveloperNotification)
		typ  string
	}{
		{"test", func(n *play.DeveloperNotification) { n.TestNotification = &play.TestNotification{Version: "1.0"} }, "TEST"},
		{"one-time product", func(n *play.DeveloperNotification) {
			n.OneTimeProductNotification = &play.OneTimeProductNotification{NotificationType: 1, PurchaseToken: "t", SKU: "coins"}
		}, "ONE_TIME_PRODUCT"},
		{"a kind added later", func(*play.DeveloperNotification) {}, "UNKNOWN"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := v.Notification(context.Background(), push(srv, developer(tc.edit)))
			if err != nil || ev.Type != tc.typ || ev.Purchase != nil || ev.ID != "m-1" {
				t.Fatalf("got %+v, %v", ev, err)
			}
		})
	}
	if srv.TokenExchanges() != 0 {
		t.Fatal("a notification about no subscription asked the API")
	}
}

func TestNotificationOutages(t *testing.T) {
	t.Parallel()
	srv := playtest.New(t)
	srv.Put("tok", playtest.Subscription(product, play.SubscriptionStateActive, start, expiry))
	srv.Fail(http.StatusServiceUnavailable)
	v := newVerifier(t, srv, nil)
	for _, n := range []play.DeveloperNotification{
		subscriptionNote(play.SubscriptionRenewed, "tok"),
		voidedNote(play.ProductTypeSubscription, "tok"),
	} {
		_, err := v.Notification(context.Background(), push(srv, n))
		if e := core.As(err); e.Kind != core.KindUnavailable || e.Code != "unavailable" {
			t.Fatalf("err = %v, want unavailable (Pub/Sub retries)", err)
		}
	}
}
