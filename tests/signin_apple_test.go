package tests

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/fx"

	"tandem/modules/accounts"
)

// Sign in with Apple's grants, as App Review wants them: the app's
// authorizationCode is redeemed at the local Apple (which checks each call's
// client secret against the team key), the refresh token is kept sealed on
// the identity, and deleting the account or unlinking Apple revokes it at
// Apple, later when Apple is down, never losing it.

// revokeWait bounds the wait for a revocation, which runs off the request
// that queued it (woken at its commit).
const revokeWait = 10 * time.Second

// appleWorld is a local Apple and Google of one profile's own, and that
// app's Revoker and revocation queue.
type appleWorld struct {
	idProviders
	revoker *accounts.Revoker
	queue   accounts.Revocations
}

func ownApple(t *testing.T) (*appleWorld, option) {
	p, opt := newIDProviders(t)
	w := &appleWorld{idProviders: p}
	return w, func(h *harness) { opt(h); withFx(fx.Populate(&w.revoker, &w.queue))(h) }
}

// translatedErr is the error body in another language: error keeps the
// English, message is translated.
func translatedErr(code, en, translated string) string {
	return `{"success":false,"error":"` + en + `","code":"` + code + `","message":"` + translated + `"}`
}

// signInWithCode signs sub in with an ID token and a fresh authorization
// code for it; it returns the answer and the code.
func (h *harness) signInWithCode(p idProviders, sub, email string, headers map[string]string) (response, string) {
	h.t.Helper()
	code := p.apple.Code(appleClient, sub)
	r := h.do(req{Method: "POST", Path: "/api/auth/signin/apple", Headers: headers,
		Body: map[string]any{"idToken": p.apple.Sign(h.t, h.appleClaims(p, sub, email)), "authorizationCode": code}})
	return r, code
}

// storedGrant is the identity's grant as its row holds it (SQL profiles).
func (h *harness) storedGrant(t *testing.T, sub string) string {
	t.Helper()
	var g string
	if err := h.DB.Get(&g, "SELECT refresh_token FROM account_identities WHERE provider = 'apple' AND subject = ?", sub); err != nil {
		t.Fatal(err)
	}
	return g
}

// wantSealed checks that the raw rows hold grant only sealed: the identity's
// column, and the revocation queue.
func (h *harness) wantSealed(t *testing.T, grant string) {
	t.Helper()
	if h.DB == nil {
		return // memory: nothing at rest
	}
	for _, q := range []string{"SELECT COUNT(*) FROM account_identities WHERE refresh_token LIKE ?",
		"SELECT COUNT(*) FROM provider_revocations WHERE token LIKE ?"} {
		var n int
		if err := h.DB.Get(&n, q, "%"+grant+"%"); err != nil || n != 0 {
			t.Fatalf("%s: %d rows hold the refresh token in clear (%v)", q, n, err)
		}
	}
}

func TestSignInWithAppleRevokesItsGrantAtUnlinkAndDeletion(t *testing.T) {
	eachProfileSigningIn(t, func(t *testing.T, h *harness, p idProviders) {
		r, code := h.signInWithCode(p, "apple-kim", "kim@x.io", nil)
		expect(t, r, 200, signInOK(true))
		kim := user{ID: r.JSON(t)["userId"].(string), Token: r.JSON(t)["token"].(string)}
		first := p.apple.RefreshToken(code)
		if first == "" {
			t.Fatalf("the code was not redeemed: %v", p.apple.Exchanged())
		}
		if h.DB != nil {
			if g := h.storedGrant(t, "apple-kim"); !strings.HasPrefix(g, "v1.") || strings.Contains(g, first) {
				t.Fatalf("the identity holds %q", g)
			}
		}
		h.wantSealed(t, first)

		// A later sign-in's code replaces the grant; the first is not revoked
		// (one authorization: revoking either would end both).
		r, code = h.signInWithCode(p, "apple-kim", "", nil)
		expect(t, r, 200, signInOK(false))
		second := p.apple.RefreshToken(code)
		h.wantSealed(t, second)

		// Unlinking Apple (Google remains) revokes its grant at Apple.
		expect(t, h.signInWith("google", p.google.Sign(t, h.googleClaims(p, "google-kim", "kim@x.io", true)), nil), 200, signInOK(false))
		expect(t, h.do(DELETE("/api/users/user/"+kim.ID+"/signin/apple").by(kim)), 200, `{"success":true,"removed":"apple"}`)
		p.apple.WaitRevoked(t, second, revokeWait)
		if slices.Contains(p.apple.Revoked(), first) {
			t.Fatal("the replaced grant was revoked too")
		}

		// Linked again with a new code (a new token: a second later), then
		// the account deleted: revoked.
		h.Clock.Advance(time.Second)
		r, code = h.signInWithCode(p, "apple-kim", "kim@x.io", nil)
		expect(t, r, 200, signInOK(false))
		third := p.apple.RefreshToken(code)
		expect(t, h.do(DELETE("/api/users/user/"+kim.ID).by(kim)), 200, "")
		p.apple.WaitRevoked(t, third, revokeWait)
		for _, refused := range p.apple.Refusals() {
			if strings.Contains(refused, "client secret") {
				t.Fatalf("Apple refused our client secret: %s", refused)
			}
		}
	})
}

// TestAppleDownAtSignInIs503: Apple's token endpoint unreachable is 503
// with Retry-After and a message in the caller's language; nothing is
// created and the ID token is not spent, so the same request succeeds once
// Apple answers. Apple's keys unreachable answer alike.
func TestAppleDownAtSignInIs503(t *testing.T) {
	eachProfileOwn(t, ownApple, func(t *testing.T, h *harness, w *appleWorld) {
		p := w.idProviders
		p.apple.SetAPIDown(true)
		code := p.apple.Code(appleClient, "apple-lou")
		body := map[string]any{"idToken": p.apple.Sign(t, h.appleClaims(p, "apple-lou", "lou@x.io")), "authorizationCode": code}
		fr := map[string]string{"Accept-Language": "fr"}
		r := h.do(req{Method: "POST", Path: "/api/auth/signin/apple", Body: body, Headers: fr})
		expect(t, r, 503, translatedErr("unavailable", "Apple cannot be reached to finish signing in; try again in a moment",
			"impossible de joindre Apple pour terminer la connexion ; réessaie dans un instant"))
		if r.Header.Get("Retry-After") != "10" {
			t.Fatalf("Retry-After %q", r.Header.Get("Retry-After"))
		}
		expect(t, h.do(req{Method: "POST", Path: "/api/auth/signin/apple", Body: body}), 503,
			errBody("unavailable", "Apple cannot be reached to finish signing in; try again in a moment"))
		p.apple.SetAPIDown(false)
		r = h.do(req{Method: "POST", Path: "/api/auth/signin/apple", Body: body})
		expect(t, r, 200, signInOK(true)) // the same token and code: nothing was made or spent
		h.wantSealed(t, p.apple.RefreshToken(code))
	})
}

// TestAppleCodeRefused: a code Apple refuses (used), or one issued for
// another subject than the ID token beside it, is 401 and creates nothing;
// the grant made for the other subject is dropped, never revoked (revoking
// it would end that user's authorization, and their own sign-in).
func TestAppleCodeRefused(t *testing.T) {
	eachProfileOwn(t, ownApple, func(t *testing.T, h *harness, w *appleWorld) {
		p := w.idProviders
		refused := errBody("invalid_token", "the authorization code is not valid; sign in with Apple again")
		r, code := h.signInWithCode(p, "apple-max", "max@x.io", nil)
		expect(t, r, 200, signInOK(true))
		used := h.signInWith("apple", p.apple.Sign(t, h.appleClaims(p, "apple-max", "")), map[string]any{"authorizationCode": code})
		expect(t, used, 401, refused)

		other := p.apple.Code(appleClient, "apple-someone-else")
		expect(t, h.signInWith("apple", p.apple.Sign(t, h.appleClaims(p, "apple-new", "new@x.io")),
			map[string]any{"authorizationCode": other}), 401, refused)
		if n, err := w.queue.PendingRevocations(context.Background()); err != nil || n != 0 {
			t.Fatalf("%d revocations queued (%v): a grant not kept is dropped", n, err)
		}
		if got := p.apple.Revoked(); len(got) != 0 {
			t.Fatalf("revoked %v", got)
		}
		// Nothing was made for apple-new: its first good sign-in creates it.
		expect(t, h.signInWith("apple", p.apple.Sign(t, h.appleClaims(p, "apple-new", "new@x.io")), nil), 200, signInOK(true))
	})
}

// TestDeletionWhileAppleIsDownRevokesLater: the deletion answers at once;
// the grant waits, sealed, in the revocation queue, and is revoked once
// Apple answers again.
func TestDeletionWhileAppleIsDownRevokesLater(t *testing.T) {
	eachProfileOwn(t, ownApple, func(t *testing.T, h *harness, w *appleWorld) {
		p := w.idProviders
		r, code := h.signInWithCode(p, "apple-ivy", "ivy@x.io", nil)
		expect(t, r, 200, signInOK(true))
		ivy := user{ID: r.JSON(t)["userId"].(string), Token: r.JSON(t)["token"].(string)}
		grant := p.apple.RefreshToken(code)

		p.apple.SetAPIDown(true)
		expect(t, h.do(DELETE("/api/users/user/"+ivy.ID).by(ivy)), 200, "")
		expect(t, h.get("/api/users/user/"+ivy.ID, ivy.Token), 401, "")
		ctx := context.Background()
		if n, err := w.queue.PendingRevocations(ctx); err != nil || n != 1 {
			t.Fatalf("%d revocations waiting (%v)", n, err)
		}
		if slices.Contains(p.apple.Revoked(), grant) {
			t.Fatal("revoked while Apple was down")
		}
		h.wantSealed(t, grant)
		// The pass the deletion woke failed: the revocation waits for its
		// backoff with the attempt counted, claimed by no one.
		waitFor(t, revokeWait, "the failed attempt", func() bool {
			due, err := w.queue.DueRevocations(ctx, h.Clock.Now().Add(accounts.RevokeRetryFirst), 10)
			return err == nil && len(due) == 1 && due[0].Attempts == 1 && due[0].Claim == ""
		})

		p.apple.SetAPIDown(false)
		h.Clock.Advance(accounts.RevokeRetryFirst)
		w.revoker.Wake()
		p.apple.WaitRevoked(t, grant, revokeWait)
		waitFor(t, revokeWait, "the queue to empty", func() bool {
			n, err := w.queue.PendingRevocations(ctx)
			return err == nil && n == 0
		})
	})
}
