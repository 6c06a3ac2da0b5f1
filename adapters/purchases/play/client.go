package play

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/oauth2"

	"tandem/core"
)

// maxBody bounds every answer read from Google.
const maxBody = 1 << 20

// apiError is a non-2xx answer; its text goes to the logs only.
type apiError struct {
	status  int
	message string
}

func (e *apiError) Error() string {
	return fmt.Sprintf("google play: HTTP %d: %s", e.status, e.message)
}

// unknown reports that Google does not know (or no longer knows) the
// purchase token: a malformed token is a 400, a forgotten one 404 or 410.
func (e *apiError) unknown() bool {
	return e.status == http.StatusBadRequest || e.status == http.StatusNotFound || e.status == http.StatusGone
}

// storeErr classifies a failed API call. Only "Google does not know it" is
// the purchase's fault; a 401/403 means our credentials are wrong, which
// the user can do nothing about, so it is unavailable like an outage.
func storeErr(err error, code string) *core.Error {
	var ae *apiError
	if errors.As(err, &ae) && ae.unknown() {
		return core.Invalid(code, "play.googlePlayDoesNotKnow", "Google Play does not know this purchase").Wrap(err)
	}
	return core.Unavailable("unavailable", "play.googlePlayCannotReached", "Google Play cannot be reached").Wrap(err)
}

// subscription reads a purchase token's subscription (subscriptionsv2.get).
func (v *Verifier) subscription(ctx context.Context, token string) (SubscriptionPurchaseV2, error) {
	var s SubscriptionPurchaseV2
	err := v.call(ctx, http.MethodGet, v.apiURL("subscriptionsv2", "tokens", token), nil, &s)
	return s, err
}

// acknowledge acknowledges a subscription purchase (subscriptions.acknowledge).
func (v *Verifier) acknowledge(ctx context.Context, productID, token string) error {
	u := v.apiURL("subscriptions", productID, "tokens", token) + ":acknowledge"
	return v.call(ctx, http.MethodPost, u, []byte("{}"), nil)
}

// apiURL is the application's purchases resource followed by segments,
// each escaped so that a token can never name another resource.
func (v *Verifier) apiURL(segments ...string) string {
	var b strings.Builder
	b.WriteString(v.endpoint + "/androidpublisher/v3/applications/" + segment(v.pkg) + "/purchases")
	for _, s := range segments {
		b.WriteString("/" + segment(s))
	}
	return b.String()
}

// segment path-escapes s; PathEscape keeps "." and "..", which a server
// would resolve as relative steps.
func segment(s string) string {
	if s == "." || s == ".." {
		return strings.Repeat("%2E", len(s))
	}
	return url.PathEscape(s)
}

// call makes one API request with the service account's bearer token,
// bounded (token exchange included) by the timeout, and decodes a 2xx JSON
// answer into out when out is not nil.
func (v *Verifier) call(ctx context.Context, method, u string, body []byte, out any) error {
	ctx, cancel := context.WithTimeout(ctx, v.timeout)
	defer cancel()
	token, err := v.accessToken(ctx)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, method, u, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	data, err := v.do(req)
	var ae *apiError
	if errors.As(err, &ae) && ae.status == http.StatusUnauthorized {
		v.dropToken(token) // revoked early: the next call exchanges a new one
	}
	if err != nil || out == nil {
		return err
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("google play: decode %s: %w", req.URL.Path, err)
	}
	return nil
}

// fetch GETs a public document (the OIDC keys), bounded by the timeout.
func (v *Verifier) fetch(ctx context.Context, u string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, v.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	return v.do(req)
}

// do sends req and reads at most maxBody of a 2xx answer; any other
// status is an *apiError.
func (v *Verifier) do(req *http.Request) ([]byte, error) {
	resp, err := v.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, &apiError{status: resp.StatusCode, message: googleMessage(data)}
	}
	return data, nil
}

// googleMessage is the message of Google's error shape
// {"error":{"code":404,"message":"...","status":"NOT_FOUND"}}, or the
// start of an answer of another shape.
func googleMessage(data []byte) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(data, &e) == nil && e.Error.Message != "" {
		return e.Error.Message
	}
	if len(data) > 200 {
		data = data[:200]
	}
	return string(data)
}

// accessToken returns the cached access token while it is valid (oauth2
// treats it as expired 10 s early) and exchanges a new JWT assertion
// otherwise. The mutex makes concurrent calls share one exchange.
func (v *Verifier) accessToken(ctx context.Context) (string, error) {
	v.tokenMu.Lock()
	defer v.tokenMu.Unlock()
	// jwt posts the assertion without a context, so the client it is given
	// carries ctx's deadline and cancellation in its transport.
	hc := *v.client
	hc.Transport = ctxTransport{ctx: ctx, base: v.client.Transport}
	src := v.jwt.TokenSource(context.WithValue(ctx, oauth2.HTTPClient, &hc))
	tok, err := oauth2.ReuseTokenSource(v.token, src).Token()
	if err != nil {
		return "", fmt.Errorf("google play: token exchange: %w", err)
	}
	v.token = tok
	return tok.AccessToken, nil
}

func (v *Verifier) dropToken(token string) {
	v.tokenMu.Lock()
	defer v.tokenMu.Unlock()
	if v.token != nil && v.token.AccessToken == token {
		v.token = nil
	}
}

// ctxTransport sends every request with ctx.
type ctxTransport struct {
	ctx  context.Context
	base http.RoundTripper
}

func (t ctxTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	return base.RoundTrip(r.WithContext(t.ctx))
}
