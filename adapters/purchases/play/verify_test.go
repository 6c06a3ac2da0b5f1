package play_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"tandem/adapters/purchases/play"
	"tandem/adapters/purchases/play/playtest"
	"tandem/core"
	"tandem/modules/premium"
)

func TestVerifyMapsEveryState(t *testing.T) {
	t.Parallel()
	srv := playtest.New(t)
	v := newVerifier(t, srv, nil)
	tests := []struct {
		state string
		want  premium.State
		acks  int // a pending acknowledgement is made only for a paid state
	}{
		{play.SubscriptionStateActive, premium.StateActive, 1},
		{play.SubscriptionStateCanceled, premium.StateActive, 1}, // auto-renew off, paid to expiry
		{play.SubscriptionStateInGracePeriod, premium.StateGrace, 1},
		{play.SubscriptionStateOnHold, premium.StateOnHold, 0},
		{play.SubscriptionStatePaused, premium.StatePaused, 0},
		{play.SubscriptionStateExpired, premium.StateExpired, 0},
		{play.SubscriptionStatePending, premium.StatePending, 0},
		{play.SubscriptionStatePendingPurchaseCanceled, premium.StatePending, 0},
	}
	for _, tc := range tests {
		t.Run(tc.state, func(t *testing.T) {
			token := "token-" + tc.state
			srv.Put(token, playtest.Subscription(product, tc.state, start, expiry))
			got, err := v.Verify(context.Background(), proof(token, product))
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			want := paid(token)
			want.State = tc.want
			if got != want {
				t.Fatalf("got  %+v\nwant %+v", got, want)
			}
			if n := srv.Acks(token); n != tc.acks {
				t.Fatalf("acknowledged %d times, want %d", n, tc.acks)
			}
		})
	}
}

func TestVerifyRefuses(t *testing.T) {
	t.Parallel()
	srv := playtest.New(t)
	srv.Put("tok", playtest.Subscription(product, play.SubscriptionStateActive, start, expiry))
	odd := playtest.Subscription(product, "SUBSCRIPTION_STATE_UNSPECIFIED", start, expiry)
	srv.Put("odd", odd)
	badTime := playtest.Subscription(product, play.SubscriptionStateActive, start, expiry)
	badTime.LineItems[0].ExpiryTime = "next month"
	srv.Put("badtime", badTime)
	v := newVerifier(t, srv, nil)
	mapped := newVerifier(t, srv, func(c *play.Config) { c.Plans = map[string]string{"premium_yearly": "99.99"} })
	tests := []struct {
		name string
		v    *play.Verifier
		p    premium.Purchase
	}{
		{"no token", v, proof("", product)},
		{"no product", v, proof("tok", "")},
		{"unknown token", v, proof("nope", product)},
		{"product not in line items", v, proof("tok", "premium_yearly")},
		{"product not in plan map", mapped, proof("tok", product)},
		{"unknown state", v, proof("odd", product)},
		{"malformed expiry", v, proof("badtime", product)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.v.Verify(context.Background(), tc.p)
			if e := core.As(err); e.Kind != core.KindInvalid || e.Code != "invalid_purchase" {
				t.Fatalf("err = %v, want invalid_purchase", err)
			}
		})
	}
	if n := srv.Acks("tok"); n != 0 {
		t.Fatalf("a refused purchase was acknowledged %d times", n)
	}
}

func TestVerifyPlanMap(t *testing.T) {
	t.Parallel()
	srv := playtest.New(t)
	srv.Put("tok", playtest.Subscription(product, play.SubscriptionStateActive, start, expiry))
	v := newVerifier(t, srv, func(c *play.Config) { c.Plans = map[string]string{product: "9.99"} })
	got, err := v.Verify(context.Background(), proof("tok", product))
	if err != nil || got.Plan != "9.99" || got.ProductID != product {
		t.Fatalf("got %+v, %v; want plan 9.99", got, err)
	}
}

func TestVerifyStoresNoToken(t *testing.T) {
	t.Parallel()
	srv := playtest.New(t)
	token := "gfkbnhcmjhpdmclkpgofenbe.AO-J1Oy-secret-bearer-handle"
	srv.Put(token, playtest.Subscription(product, play.SubscriptionStateActive, start, expiry))
	got, err := newVerifier(t, srv, nil).Verify(context.Background(), proof(token, product))
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if got.StoreRef != ref(token) || len(got.StoreRef) != 64 {
		t.Fatalf("StoreRef = %q, want the SHA-256 of the token", got.StoreRef)
	}
	if dump := fmt.Sprintf("%#v", got); strings.Contains(dump, token) {
		t.Fatalf("the token appears in the purchase: %s", dump)
	}
	if got.Key() != "play:"+ref(token) {
		t.Fatalf("Key = %q", got.Key())
	}
}

func TestVerifyEscapesPathSegments(t *testing.T) {
	t.Parallel()
	srv := playtest.New(t)
	token := "a/b?c=d#e f"
	srv.Put(token, playtest.Subscription(product, play.SubscriptionStateActive, start, expiry))
	if _, err := newVerifier(t, srv, nil).Verify(context.Background(), proof(token, product)); err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if srv.Acks(token) != 1 {
		t.Fatal("the acknowledgement did not reach the token")
	}
}

func TestVerifyAcknowledgesOnce(t *testing.T) {
	t.Parallel()
	srv := playtest.New(t)
	srv.Put("tok", playtest.Subscription(product, play.SubscriptionStateActive, start, expiry))
	v := newVerifier(t, srv, nil)
	for range 3 {
		if _, err := v.Verify(context.Background(), proof("tok", product)); err != nil {
			t.Fatalf("Verify: %v", err)
		}
	}
	sub, _ := srv.Get("tok")
	if srv.Acks("tok") != 1 || sub.AcknowledgementState != play.AcknowledgementStateAcknowledged {
		t.Fatalf("acks = %d, state %s; want one acknowledgement", srv.Acks("tok"), sub.AcknowledgementState)
	}
	done := playtest.Subscription(product, play.SubscriptionStateActive, start, expiry)
	done.AcknowledgementState = play.AcknowledgementStateAcknowledged
	srv.Put("done", done)
	if _, err := v.Verify(context.Background(), proof("done", product)); err != nil || srv.Acks("done") != 0 {
		t.Fatalf("an acknowledged purchase was acknowledged again (%d), %v", srv.Acks("done"), err)
	}
}

// failAcks fails every acknowledgement at the transport.
type failAcks struct{}

func (failAcks) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.HasSuffix(r.URL.Path, ":acknowledge") {
		return nil, errors.New("connection reset")
	}
	return http.DefaultTransport.RoundTrip(r)
}

func TestVerifyFailedAcknowledgementIsUnavailable(t *testing.T) {
	t.Parallel()
	srv := playtest.New(t)
	srv.Put("tok", playtest.Subscription(product, play.SubscriptionStateActive, start, expiry))
	v := newVerifier(t, srv, func(c *play.Config) { c.Client = &http.Client{Transport: failAcks{}} })
	_, err := v.Verify(context.Background(), proof("tok", product))
	if e := core.As(err); e.Kind != core.KindUnavailable || e.Code != "unavailable" {
		t.Fatalf("err = %v, want unavailable", err)
	}
}

func TestVerifyCachesTheAccessToken(t *testing.T) {
	t.Parallel()
	srv := playtest.New(t)
	srv.Put("tok", playtest.Subscription(product, play.SubscriptionStateActive, start, expiry))
	v := newVerifier(t, srv, nil)
	for range 5 {
		if _, err := v.Verify(context.Background(), proof("tok", product)); err != nil {
			t.Fatalf("Verify: %v", err)
		}
	}
	if n := srv.TokenExchanges(); n != 1 {
		t.Fatalf("%d token exchanges for 5 verifications, want 1", n)
	}
}

func TestVerifyOutages(t *testing.T) {
	t.Parallel()
	srv := playtest.New(t)
	srv.Put("tok", playtest.Subscription(product, play.SubscriptionStateActive, start, expiry))
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	other := playtest.New(t)
	// other's key with srv's token endpoint: the assertion does not verify.
	wrongKey := []byte(strings.Replace(string(other.Credentials()), other.URL(), srv.URL(), 1))
	tests := []struct {
		name string
		fail int
		hang bool
		edit func(c *play.Config)
		code string
	}{
		{name: "400", fail: 400, code: "invalid_purchase"},
		{name: "404", fail: 404, code: "invalid_purchase"},
		{name: "410", fail: 410, code: "invalid_purchase"},
		{name: "401", fail: 401, code: "unavailable"},
		{name: "403", fail: 403, code: "unavailable"},
		{name: "500", fail: 500, code: "unavailable"},
		{name: "503", fail: 503, code: "unavailable"},
		{name: "hang", hang: true, edit: func(c *play.Config) { c.Timeout = 200 * time.Millisecond }, code: "unavailable"},
		{name: "connection refused", edit: func(c *play.Config) { c.Endpoint = closed.URL }, code: "unavailable"},
		{name: "token endpoint refuses our key", edit: func(c *play.Config) { c.Credentials = wrongKey }, code: "unavailable"},
		{name: "API refuses another server's token", edit: func(c *play.Config) { c.Credentials = other.Credentials() },
			code: "unavailable"},
	}
	for _, tc := range tests { // one after another: they share srv's outage switches
		t.Run(tc.name, func(t *testing.T) {
			srv.Fail(tc.fail)
			srv.Hang(tc.hang)
			t.Cleanup(func() { srv.Fail(0); srv.Hang(false) })
			v := newVerifier(t, srv, tc.edit)
			began := time.Now()
			_, err := v.Verify(context.Background(), proof("tok", product))
			if got := code(err); got != tc.code {
				t.Fatalf("err = %v, want %s", err, tc.code)
			}
			if tc.code == "unavailable" && core.KindOf(err) != core.KindUnavailable {
				t.Fatalf("kind %v", core.KindOf(err))
			}
			if d := time.Since(began); d > time.Second {
				t.Fatalf("took %v: the timeout does not bound the call", d)
			}
		})
	}
	if srv.Acks("tok") != 0 {
		t.Fatal("a failed verification acknowledged")
	}
}
