package tests

import (
	"encoding/json"
	"net"
	"testing"

	"github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"
	"github.com/gofiber/fiber/v2"
	"go.uber.org/fx"

	"tandem/adapters/sqlstore"
	"tandem/adapters/web"
)

// passkeyPage is the app's side of a passkey ceremony, as a web client
// writes it: the options routes, navigator.credentials, the verify routes.
const passkeyPage = `<!doctype html><meta charset="utf-8"><title>passkeys</title>
<script>
async function call(path, token, body) {
  const headers = {};
  if (token) headers.Authorization = "Bearer " + token;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const r = await fetch(path, {method: "POST", headers, body: body === undefined ? undefined : JSON.stringify(body)});
  const js = await r.json();
  if (!r.ok) throw new Error(path + ": " + r.status + " " + JSON.stringify(js));
  return js;
}
async function registerPasskey(token) {
  const o = await call("/api/auth/passkeys/register/options", token);
  const cred = await navigator.credentials.create({publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(o.options.publicKey)});
  return call("/api/auth/passkeys/register/verify", token, cred.toJSON());
}
async function signInWithPasskey() {
  const o = await call("/api/auth/passkeys/signin/options");
  const cred = await navigator.credentials.get({publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(o.options.publicKey)});
  return call("/api/auth/passkeys/signin/verify", undefined, cred.toJSON());
}
async function profile(userId, token) {
  const r = await fetch("/api/users/user/" + userId, {headers: {Authorization: "Bearer " + token}});
  return r.json();
}
</script><body>passkeys</body>`

// TestBrowserPasskeys registers a passkey in Chromium (a virtual
// authenticator of the DevTools WebAuthn domain: CTAP2, internal, resident
// keys, user verification), signs out, signs in with it, and reads the
// profile with the token it got. http://localhost is a secure context, so
// the page is served by the app itself on the relying party's origin.
func TestBrowserPasskeys(t *testing.T) {
	parallel(t)
	ctx := browser(t)
	_, port, err := net.SplitHostPort(freePort(t))
	if err != nil {
		t.Fatal(err)
	}
	origin := "http://localhost:" + port
	page := web.RouteFunc(func(r fiber.Router) {
		r.Get("/passkeys-test", func(c *fiber.Ctx) error {
			c.Type("html")
			return c.SendString(passkeyPage)
		})
	})
	h := newHarness(t, profile{name: "sqlite", sql: sqlstore.SQLite},
		withEnv("TANDEM_ADDR", "127.0.0.1:"+port),
		withEnv("TANDEM_PASSKEYS", "rp=localhost&name=Tandem&origin="+origin),
		withFx(fx.Provide(web.AsRoute(func() web.RouteFunc { return page }))))
	ann := h.newUser("ann@example.com")

	do(t, ctx, "open the page", chromedp.Navigate(origin+"/passkeys-test"), chromedp.WaitVisible(chromedp.CSS("body")))
	if _, err := chromedp.Call(ctx, webauthn.Enable, webauthn.EnableParams{}); err != nil {
		t.Fatalf("WebAuthn.enable: %v", err)
	}
	if _, err := chromedp.Call(ctx, webauthn.AddVirtualAuthenticator, webauthn.AddVirtualAuthenticatorParams{
		Options: &webauthn.VirtualAuthenticatorOptions{Protocol: webauthn.AuthenticatorProtocolCtap2,
			Transport: webauthn.AuthenticatorTransportInternal, HasResidentKey: true, HasUserVerification: true,
			IsUserVerified: true, AutomaticPresenceSimulation: true}}); err != nil {
		t.Fatalf("WebAuthn.addVirtualAuthenticator: %v", err)
	}

	type passkeyReply struct {
		Success bool `json:"success"`
		Passkey struct {
			ID string `json:"id"`
		} `json:"passkey"`
	}
	reg, err := chromedp.Run(ctx, chromedp.Evaluate[passkeyReply](`registerPasskey(`+jsString(ann.Token)+`)`, chromedp.EvalAwaitPromise))
	if err != nil || !reg.Success || reg.Passkey.ID == "" {
		t.Fatalf("register: %+v %v", reg, err)
	}

	expect(t, h.post("/api/auth/logout", ann.Token, nil), 200, "")
	expect(t, h.get("/api/users/user/"+ann.ID, ann.Token), 401, "")

	type signInReply struct {
		Success bool   `json:"success"`
		Code    string `json:"code"`
		UserID  string `json:"userId"`
		Token   string `json:"token"`
	}
	in, err := chromedp.Run(ctx, chromedp.Evaluate[signInReply](`signInWithPasskey()`, chromedp.EvalAwaitPromise))
	if err != nil || !in.Success || in.Code != "signin_success" || in.UserID != ann.ID || in.Token == "" {
		t.Fatalf("sign in: %+v %v", in, err)
	}
	type profileReply struct {
		Email string `json:"email"`
	}
	p, err := chromedp.Run(ctx, chromedp.Evaluate[profileReply](`profile(`+jsString(in.UserID)+`, `+jsString(in.Token)+`)`, chromedp.EvalAwaitPromise))
	if err != nil || p.Email != "ann@example.com" {
		t.Fatalf("profile with the passkey's token: %+v %v", p, err)
	}
	list := h.get("/api/users/user/"+ann.ID+"/passkeys", in.Token)
	expect(t, list, 200, `{"success":true,"passkeys":[{"id":"`+reg.Passkey.ID+`","credentialId":"<string>","createdAt":"<number>","lastUsedAt":"<number>"}]}`)
}

// jsString quotes s for a script.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
