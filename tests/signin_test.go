package tests

import (
	"slices"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"tandem/adapters/signin/signintest"
)

// Sign in with Apple and Google against local providers: keys made here,
// served as JWKS by httptest servers that TANDEM_SIGNIN's jwks= points at
// (development only). The local Apple also answers the token and revoke
// endpoints (endpoint=) for a team key made here, whose grants are sealed
// under testEncryptionKey.

const (
	appleClient  = "com.example.tandem"
	googleClient = "1234.apps.googleusercontent.com"
	appleTeam    = "ABCDE12345"
	appleKeyID   = "KEY1234567"
	// testEncryptionKey is TANDEM_ENCRYPTION_KEY: 32 bytes in base64.
	testEncryptionKey = "dGVzdC1lbmNyeXB0aW9uLWtleS0zMi1ieXRlcy0hISE="
)

// idProviders are a local Apple and Google.
type idProviders struct{ apple, google *signintest.Provider }

func newIDProviders(t *testing.T) (idProviders, option) {
	key, _ := signintest.Keys(t)
	p := idProviders{apple: signintest.New(t, "https://appleid.apple.com", key),
		google: signintest.New(t, "https://accounts.google.com", key)}
	team, keyfile := signintest.NewTeamKey(t)
	p.apple.ServeAppleAPI(appleTeam, appleKeyID, &team.PublicKey)
	signin := withEnv("TANDEM_SIGNIN", "apple?client="+appleClient+"&jwks="+p.apple.URL()+
		"&team="+appleTeam+"&key="+appleKeyID+"&keyfile="+keyfile+"&endpoint="+p.apple.Server.URL+
		",google?client=other&client="+googleClient+"&jwks="+p.google.URL())
	return p, func(h *harness) { signin(h); withEnv("TANDEM_ENCRYPTION_KEY", testEncryptionKey)(h) }
}

// eachProfileSigningIn runs fn on every profile with local providers.
func eachProfileSigningIn(t *testing.T, fn func(t *testing.T, h *harness, p idProviders), opts ...option) {
	p, opt := newIDProviders(t)
	eachProfile(t, func(t *testing.T, h *harness) { fn(t, h, p) }, append(opts, opt)...)
}

// appleClaims are Apple's claims for sub with email (verified as Apple
// says it: the string "true"), issued now.
func (h *harness) appleClaims(p idProviders, sub, email string) jwt.MapClaims {
	c := p.apple.Claims(appleClient, sub, h.Clock.Now())
	if email != "" {
		c["email"], c["email_verified"] = email, "true"
	}
	return c
}

func (h *harness) googleClaims(p idProviders, sub, email string, verified bool) jwt.MapClaims {
	c := p.google.Claims(googleClient, sub, h.Clock.Now())
	c["email"], c["email_verified"] = email, verified
	return c
}

func (h *harness) signInWith(provider, token string, extra map[string]any) response {
	h.t.Helper()
	body := map[string]any{"idToken": token}
	for k, v := range extra {
		body[k] = v
	}
	return h.post("/api/auth/signin/"+provider, "", body)
}

func signInOK(created bool) string {
	if created {
		return `{"success":true,"code":"signin_success","userId":"<string>","token":"<string>","created":true,"message":"<string>"}`
	}
	return `{"success":true,"code":"signin_success","userId":"<string>","token":"<string>","created":false,"message":"<string>"}`
}

var invalidToken = errBody("invalid_token", "the ID token is not valid")

func TestSignInWithAppleAndGoogle(t *testing.T) {
	eachProfileSigningIn(t, func(t *testing.T, h *harness, p idProviders) {
		r := h.signInWith("apple", p.apple.Sign(t, h.appleClaims(p, "apple-ann", "Ann@X.io")),
			map[string]any{"nonce": "", "givenName": "Ann", "familyName": "Lee"})
		expect(t, r, 200, signInOK(true))
		id, token := r.JSON(t)["userId"].(string), r.JSON(t)["token"].(string)
		expect(t, h.get("/api/users/user/"+id, token), 200, `{"success":true,"userId":"`+id+`","email":"ann@x.io",
			"displayName":"Ann Lee","timezone":"","locale":"en","createdAt":"<number>","passwordRequired":true,"signInMethods":["apple"]}`)

		// The same subject is the same account; Apple leaves the e-mail out after the first time.
		again := h.signInWith("apple", p.apple.Sign(t, h.appleClaims(p, "apple-ann", "")), nil)
		expect(t, again, 200, signInOK(false))
		if again.JSON(t)["userId"] != id {
			t.Fatalf("another account: %s", again.Body)
		}
		// Google with the same verified e-mail joins it; a nonce matches as sent.
		c := h.googleClaims(p, "google-ann", "ann@x.io", true)
		c["nonce"] = "n-1"
		g := h.signInWith("google", p.google.Sign(t, c), map[string]any{"nonce": "n-1"})
		expect(t, g, 200, signInOK(false))
		if g.JSON(t)["userId"] != id {
			t.Fatalf("google made another account: %s", g.Body)
		}
		expect(t, h.get("/api/users/user/"+id, token), 200, `{"success":true,"userId":"`+id+`","email":"ann@x.io",
			"displayName":"Ann Lee","timezone":"","locale":"en","createdAt":"<number>","passwordRequired":true,"signInMethods":["apple","google"]}`)
		exp := h.get("/api/users/user/"+id+"/export", token)
		expect(t, exp, 200, "")
		if ids := exp.JSON(t)["account"].(map[string]any)["identities"].([]any); len(ids) != 2 {
			t.Fatalf("export identities %v", ids)
		}

		// A method goes while another remains, the caller's only.
		other, otherToken := h.signUp("bob@x.io")
		expect(t, h.do(DELETE("/api/users/user/"+id+"/signin/apple").by(user{ID: other, Token: otherToken})), 403, "")
		expect(t, h.do(DELETE("/api/users/user/"+other+"/signin/apple").by(user{ID: other, Token: otherToken})), 404,
			errBody("not_found", "this sign-in method is not linked to the account"))
		expect(t, h.do(DELETE("/api/users/user/"+id+"/signin/apple").by(user{ID: id, Token: token})), 200,
			`{"success":true,"removed":"apple"}`)
		expect(t, h.do(DELETE("/api/users/user/"+id+"/signin/google").by(user{ID: id, Token: token})), 409,
			errBody("last_signin_method", "this is the account's last way to sign in; add another first"))
		expect(t, h.do(DELETE("/api/users/user/"+id+"/signin/apple").by(user{ID: id, Token: token})), 404, "")

		// Deleting the account takes its identities: Google's subject starts afresh.
		expect(t, h.do(DELETE("/api/users/user/"+id).by(user{ID: id, Token: token})), 200, "")
		fresh := h.signInWith("google", p.google.Sign(t, h.googleClaims(p, "google-ann", "ann@x.io", true)), nil)
		expect(t, fresh, 200, signInOK(true))
		if fresh.JSON(t)["userId"] == id {
			t.Fatal("the deleted account came back")
		}
	})
}

func TestSignInRefusesEveryBadToken(t *testing.T) {
	eachProfileSigningIn(t, func(t *testing.T, h *harness, p idProviders) {
		served, foreign := signintest.Keys(t)
		good := func() jwt.MapClaims { return h.appleClaims(p, "apple-bad", "bad@x.io") }
		with := func(k string, v any) jwt.MapClaims { c := good(); c[k] = v; return c }
		for name, token := range map[string]string{
			"wrong audience": p.apple.Sign(t, with("aud", googleClient)),
			"wrong issuer":   p.apple.Sign(t, with("iss", "https://accounts.google.com")),
			"expired":        p.apple.Sign(t, with("exp", h.Clock.Now().Add(-time.Minute).Unix())),
			"alg none":       signintest.None(t, good(), "k1"),
			"HS256":          signintest.HS256(t, good(), "k1", served),
			"a foreign key":  signintest.SignWith(t, good(), "k1", foreign),
			"an unknown kid": signintest.SignWith(t, good(), "k7", served),
			"garbage":        "garbage",
		} {
			t.Run(name, func(t *testing.T) {
				expect(t, h.signInWith("apple", token, nil), 401, invalidToken)
			})
		}
		expect(t, h.signInWith("apple", p.apple.Sign(t, with("nonce", "other")), map[string]any{"nonce": "n-1"}), 401, invalidToken)
		expect(t, h.signInWith("google", p.apple.Sign(t, good()), nil), 401, invalidToken) // Apple's token at Google's door
		expect(t, h.post("/api/auth/signin/apple", "", map[string]any{}), 400, errInvalid("idToken is required"))
		// Nothing was created: the subject's first good sign-in creates the
		// account (once the IP's 10 refused attempts are past their window).
		h.Clock.Advance(16 * time.Minute)
		expect(t, h.signInWith("apple", p.apple.Sign(t, good()), nil), 200, signInOK(true))
	})
}

func TestSignInTakesOverAPendingAccount(t *testing.T) {
	eachProfileSigningIn(t, func(t *testing.T, h *harness, p idProviders) {
		// A stranger signed up with the owner's address and never verified it.
		r := h.post("/api/auth/signup/email", "", map[string]any{"email": "owner@x.io", "password": "stranger-pass"})
		expect(t, r, 200, "")
		pending := r.JSON(t)["userId"].(string)
		code := h.Mail.Code("owner@x.io")

		g := h.signInWith("google", p.google.Sign(t, h.googleClaims(p, "google-owner", "owner@x.io", true)), nil)
		expect(t, g, 200, signInOK(false))
		if g.JSON(t)["userId"] != pending {
			t.Fatalf("not the pending account: %s", g.Body)
		}
		token := g.JSON(t)["token"].(string)
		expect(t, h.get("/api/users/user/"+pending, token), 200, `{"success":true,"userId":"`+pending+`","email":"owner@x.io",
			"displayName":"","timezone":"","locale":"en","createdAt":"<number>","passwordRequired":true,"signInMethods":["google"]}`)
		// The stranger's password and code are gone.
		expect(t, h.loginAs("owner@x.io", "stranger-pass", nil), 401, errBody("invalid_credentials", "invalid e-mail or password"))
		expect(t, h.post("/api/auth/signup/email", "", map[string]any{"userId": pending, "verificationCode": code}), 400,
			errBody("invalid_code", "invalid or expired code"))
	})
}

// An e-mail the provider did not verify is never matched to, made into or
// held for an address (security_takeover_test.go walks the attacks).
func TestSignInWithAnUnverifiedEmailNeverJoins(t *testing.T) {
	eachProfileSigningIn(t, func(t *testing.T, h *harness, p idProviders) {
		id, token := h.signUp("victim@x.io")
		expect(t, h.signInWith("google", p.google.Sign(t, h.googleClaims(p, "google-x", "victim@x.io", false)), nil),
			403, errClaimNotVerified)
		expect(t, h.get("/api/users/user/"+id, token), 200, `{"success":true,"userId":"`+id+`","email":"victim@x.io",
			"displayName":"","timezone":"","locale":"en","createdAt":"<number>","signInMethods":["password"]}`)
		expect(t, h.post("/api/auth/signup/email", "", map[string]any{"email": "pending@x.io", "password": pw}), 200, "")
		expect(t, h.signInWith("google", p.google.Sign(t, h.googleClaims(p, "google-y", "pending@x.io", false)), nil), 403, errClaimNotVerified)
		expect(t, h.signInWith("google", p.google.Sign(t, h.googleClaims(p, "google-z", "free@x.io", false)), nil), 403, errClaimNotVerified)
		owner, ownerToken := h.signUp("free@x.io")
		expect(t, h.get("/api/users/user/"+owner, ownerToken), 200, `{"success":true,"userId":"`+owner+`","email":"free@x.io",
			"displayName":"","timezone":"","locale":"en","createdAt":"<number>","signInMethods":["password"]}`)
	})
}

// TestSignInKeysUnreachableIs503: the provider's keys unreachable is 503
// with Retry-After and a message in the caller's language, never 401; an
// authorization code beside the token is not redeemed.
func TestSignInKeysUnreachableIs503(t *testing.T) {
	eachProfileSigningIn(t, func(t *testing.T, h *harness, p idProviders) {
		p.apple.SetDown(true)
		r := h.signInWith("apple", p.apple.Sign(t, h.appleClaims(p, "apple-1", "a@x.io")), nil)
		expect(t, r, 503, errBody("unavailable", "the sign-in provider's keys cannot be fetched; try again"))
		if r.Header.Get("Retry-After") != "10" {
			t.Fatalf("Retry-After %q", r.Header.Get("Retry-After"))
		}
		code := p.apple.Code(appleClient, "apple-1")
		r = h.do(req{Method: "POST", Path: "/api/auth/signin/apple", Headers: map[string]string{"Accept-Language": "de"},
			Body: map[string]any{"idToken": p.apple.Sign(t, h.appleClaims(p, "apple-1", "a@x.io")), "authorizationCode": code}})
		expect(t, r, 503, translatedErr("unavailable", "the sign-in provider's keys cannot be fetched; try again",
			"die Schlüssel des Anmeldeanbieters können nicht abgerufen werden; versuche es erneut"))
		if slices.Contains(p.apple.Exchanged(), code) {
			t.Fatal("the code was redeemed for a sign-in refused")
		}
	})
}

func TestSignInIsRateLimitedPerIP(t *testing.T) {
	eachProfileSigningIn(t, func(t *testing.T, h *harness, p idProviders) {
		for range 10 {
			expect(t, h.do(req{Method: "POST", Path: "/api/auth/signin/google", Headers: fromIP("203.0.113.7"),
				Body: map[string]any{"idToken": "garbage"}}), 401, invalidToken)
		}
		r := h.do(req{Method: "POST", Path: "/api/auth/signin/google", Headers: fromIP("203.0.113.7"),
			Body: map[string]any{"idToken": p.google.Sign(t, h.googleClaims(p, "g", "g@x.io", true))}})
		expect(t, r, 429, "")
		if r.Header.Get("Retry-After") == "" {
			t.Fatal("429 without Retry-After")
		}
		// Another address is not held back.
		expect(t, h.do(req{Method: "POST", Path: "/api/auth/signin/google", Headers: fromIP("203.0.113.8"),
			Body: map[string]any{"idToken": p.google.Sign(t, h.googleClaims(p, "g", "g@x.io", true))}}), 200, signInOK(true))
	}, withTrustedProxy(), withEnv("TANDEM_RATE_LIMIT_IP", "1000"))
}

// Passkeys are sign-in methods too: the profile lists them, the last
// provider may go while a passkey remains, and the last passkey may not go
// while nothing else remains.
func TestPasskeysAreSignInMethods(t *testing.T) {
	eachProfileSigningIn(t, func(t *testing.T, h *harness, p idProviders) {
		r := h.signInWith("google", p.google.Sign(t, h.googleClaims(p, "google-kim", "kim@x.io", true)), nil)
		expect(t, r, 200, signInOK(true))
		kim := user{ID: r.JSON(t)["userId"].(string), Token: r.JSON(t)["token"].(string)}
		key := h.registerPasskey(t, kim, newSoftKey(t))
		methods := func() any { return h.get("/api/users/user/"+kim.ID, kim.Token).JSON(t)["signInMethods"] }
		if got := methods(); !slices.Equal(toStrings(got), []string{"google", "passkey"}) {
			t.Fatalf("methods %v", got)
		}
		expect(t, h.do(DELETE("/api/users/user/"+kim.ID+"/signin/google").by(kim)), 200, `{"success":true,"removed":"google"}`)
		expect(t, h.do(DELETE("/api/users/user/"+kim.ID+"/passkeys/"+key).by(kim)), 409,
			errBody("last_signin_method", "this is the account's last way to sign in; add another first"))
		if got := methods(); !slices.Equal(toStrings(got), []string{"passkey"}) {
			t.Fatalf("methods %v", got)
		}
		second := h.registerPasskey(t, kim, newSoftKey(t))
		expect(t, h.do(DELETE("/api/users/user/"+kim.ID+"/passkeys/"+key).by(kim)), 200, "")
		expect(t, h.do(DELETE("/api/users/user/"+kim.ID+"/passkeys/"+second).by(kim)), 409, "")
	}, withPasskeys())
}

func toStrings(v any) []string {
	var out []string
	for _, s := range v.([]any) {
		out = append(out, s.(string))
	}
	return out
}
