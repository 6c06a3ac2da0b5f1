package tests

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"tandem/core"
)

// One mailbox, one owner: the attacks of a stranger holding an address's
// unverified provider claim, or a stolen token, written as the attacker's
// steps, on every profile.

var errClaimNotVerified = errBody("email_not_verified",
	"the provider has not verified this e-mail: sign up with it, or verify it with the provider first")

var errReauth = errBody("reauthentication_required", "sign in again to add a way in to your account")

func (h *harness) methodsOf(t *testing.T, u user) []string {
	t.Helper()
	r := h.get("/api/users/user/"+u.ID, u.Token)
	expect(t, r, 200, "")
	return toStrings(r.JSON(t)["signInMethods"])
}

// Attack 1 and 2: an unverified Google claim on the victim's address opens
// nothing: no account, no session, nothing held for the address; the
// owner signs up, and later signs in with Apple, and the stranger's Google
// identity is on neither.
func TestAttackUnverifiedClaimOpensNothing(t *testing.T) {
	eachProfileSigningIn(t, func(t *testing.T, h *harness, p idProviders) {
		tries := 0
		stranger := func() response { // a new token each time: a token signs in once
			tries++
			c := h.googleClaims(p, "google-eve", "victim@x.io", false)
			c["jti"] = fmt.Sprint("eve-", tries)
			return h.signInWith("google", p.google.Sign(t, c), nil)
		}
		expect(t, stranger(), 403, errClaimNotVerified)
		// The address is free: the owner's sign-up makes the account.
		r := h.post("/api/auth/signup/email", "", map[string]any{"email": "victim@x.io", "password": pw})
		expect(t, r, 200, `{"success":true,"code":"verification_required","userId":"<string>","message":"<string>"}`)
		victim := user{ID: r.JSON(t)["userId"].(string)}
		expect(t, stranger(), 403, errClaimNotVerified) // nor joins the pending account
		v := h.post("/api/auth/signup/email", "", map[string]any{"userId": victim.ID, "verificationCode": h.Mail.Code("victim@x.io")})
		expect(t, v, 200, "")
		victim.Token = v.JSON(t)["token"].(string)
		expect(t, stranger(), 403, errClaimNotVerified) // nor the verified one
		if got := h.methodsOf(t, victim); !slices.Equal(got, []string{"password"}) {
			t.Fatalf("the owner's account holds %v", got)
		}
		// The owner's own verified Apple sign-in joins; the stranger's Google
		// is still nowhere.
		a := h.signInWith("apple", p.apple.Sign(t, h.appleClaims(p, "apple-victim", "victim@x.io")), nil)
		expect(t, a, 200, signInOK(false))
		if a.JSON(t)["userId"] != victim.ID {
			t.Fatalf("apple signed in to %v", a.JSON(t)["userId"])
		}
		if got := h.methodsOf(t, victim); !slices.Equal(got, []string{"password", "apple"}) {
			t.Fatalf("after apple: %v", got)
		}
		expect(t, stranger(), 403, errClaimNotVerified)
		// The owner is told of the new way in, by mail and in the app.
		if m, _ := h.Mail.Last("victim@x.io"); !strings.Contains(m.Text, "Sign in with Apple was linked") {
			t.Fatalf("no mail of the linked provider: %+v", m)
		}
		n := h.get("/api/users/user/"+victim.ID+"/notifications", victim.Token)
		expect(t, n, 200, "")
		if !strings.Contains(string(n.Body), "Apple sign-in linked") {
			t.Fatalf("no notification of the linked provider: %s", n.Body)
		}
	})
}

// Attack 3: an unverified claim on an administrator's address that has no
// account gets nothing, and no administrator right reaches an address
// before it is proven: the administrator's own sign-up then works as any.
func TestAttackAdministratorAddressNeedsProof(t *testing.T) {
	eachProfileSigningIn(t, func(t *testing.T, h *harness, p idProviders) {
		r := h.signInWith("google", p.google.Sign(t, h.googleClaims(p, "google-eve", "boss@x.io", false)), nil)
		expect(t, r, 403, errClaimNotVerified)
		// The administrator signs up; before the code nothing signs in.
		s := h.post("/api/auth/signup/email", "", map[string]any{"email": "boss@x.io", "password": pw})
		expect(t, s, 200, "")
		expect(t, h.loginAs("boss@x.io", pw, nil), 403, errBody("email_not_verified", "verify your e-mail before logging in"))
		flag := map[string]any{"action": "create", "key": "stop_the_app", "name": "Stop", "isEnabled": true}
		expect(t, h.post("/api/feature-flags", "", flag), 401, "")
		// Proven, the administrator's rights are there.
		boss := h.newUserVerified(t, s.JSON(t)["userId"].(string), "boss@x.io")
		expect(t, h.post("/api/feature-flags", boss.Token, flag), 200, "")
	}, withEnv("TANDEM_ADMIN_EMAILS", "boss@x.io"))
}

// resetPassword runs the whole reset by mailed code.
func (h *harness) resetPassword(t *testing.T, id, email, password string) {
	t.Helper()
	expect(t, h.post("/api/auth/reset", "", map[string]any{"email": email}), 200, "")
	v := h.post("/api/auth/reset", "", map[string]any{"userId": id, "code": h.Mail.Code(email)})
	expect(t, v, 200, "")
	expect(t, h.post("/api/auth/reset", "", map[string]any{"userId": id, "newPassword": password,
		"resetToken": v.JSON(t)["resetToken"]}), 200, "")
}

// newUserVerified verifies a pending sign-up and sets the password an
// administrator's address must set after its proof.
func (h *harness) newUserVerified(t *testing.T, id, email string) user {
	t.Helper()
	v := h.post("/api/auth/signup/email", "", map[string]any{"userId": id, "verificationCode": h.Mail.Code(email)})
	expect(t, v, 200, "")
	u := user{ID: id, Token: v.JSON(t)["token"].(string)}
	if v.JSON(t)["passwordRequired"] == true {
		set := h.post("/api/users/user/"+id+"/password", u.Token, map[string]any{"newPassword": pw})
		expect(t, set, 200, "")
		u.Token = set.JSON(t)["token"].(string)
	}
	return u
}

// Attack 4: a stolen token older than a few minutes adds no way in: no
// passkey, no first password; refused, nothing stored.
func TestAttackStolenTokenAddsNoWayIn(t *testing.T) {
	eachProfileSigningIn(t, func(t *testing.T, h *harness, p idProviders) {
		victim := h.newUser("victim@x.io")
		h.Clock.Advance(core.ReauthWindow + time.Minute) // the thief's copy is not fresh
		expect(t, h.post("/api/auth/passkeys/register/options", victim.Token, nil), 403, errReauth)
		expect(t, h.get("/api/users/user/"+victim.ID+"/passkeys", victim.Token), 200, `{"success":true,"passkeys":[]}`)

		// An Apple-only account: the stolen token sets no password.
		a := h.signInWith("apple", p.apple.Sign(t, h.appleClaims(p, "apple-kim", "kim@x.io")), nil)
		expect(t, a, 200, signInOK(true))
		kim := user{ID: a.JSON(t)["userId"].(string), Token: a.JSON(t)["token"].(string)}
		h.Clock.Advance(core.ReauthWindow + time.Minute)
		expect(t, h.post("/api/users/user/"+kim.ID+"/password", kim.Token, map[string]any{"newPassword": "thief-password"}), 403, errReauth)
		expect(t, h.loginAs("kim@x.io", "thief-password", nil), 401, "")
		if got := h.methodsOf(t, kim); !slices.Equal(got, []string{"apple"}) {
			t.Fatalf("kim's ways in: %v", got)
		}
		// The owner, just signed in again, may; and is told.
		a = h.signInWith("apple", p.apple.Sign(t, h.appleClaims(p, "apple-kim", "kim@x.io")), nil)
		expect(t, a, 200, signInOK(false))
		fresh := a.JSON(t)["token"].(string)
		expect(t, h.post("/api/users/user/"+kim.ID+"/password", fresh, map[string]any{"newPassword": "kims-own-pass"}), 200, "")
		expect(t, h.loginAs("kim@x.io", "kims-own-pass", nil), 200, "")
		if m, _ := h.Mail.Last("kim@x.io"); !strings.Contains(m.Text, "A password was set") {
			t.Fatalf("no mail of the new password: %+v", m)
		}
	}, withPasskeys())
}

// Attack 4, the panic button: a thief who planted a passkey with a fresh
// stolen token keeps nothing after the owner's "log out everywhere", nor
// after a reset; the owner is mailed what went.
func TestAttackPanicButtonLeavesTheThiefNothing(t *testing.T) {
	for _, panic := range []string{"logout everywhere", "reset"} {
		t.Run(panic, func(t *testing.T) {
			eachProfileSigningIn(t, func(t *testing.T, h *harness, p idProviders) {
				owner := h.newUser("owner@x.io")
				g := h.signInWith("google", p.google.Sign(t, h.googleClaims(p, "google-owner", "owner@x.io", true)), nil)
				expect(t, g, 200, signInOK(false))
				thief := user{ID: owner.ID, Token: owner.Token} // a copy of a fresh token
				key := newSoftKey(t)
				h.registerPasskey(t, thief, key)
				if m, _ := h.Mail.Last("owner@x.io"); !strings.Contains(m.Text, "A passkey was added") {
					t.Fatalf("no mail of the planted passkey: %+v", m)
				}
				stream := h.openStream(thief, "")
				// The thief asks to pair the owner with an accomplice: a pending request.
				accomplice := h.newUser("eve@x.io")
				ownerCode := h.generateCode(thief)
				expect(t, h.submitCode(thief, h.generateCode(accomplice)), 200, "")

				ownerNow := h.loginAs("owner@x.io", pw, nil).JSON(t)["token"].(string)
				if panic == "reset" {
					h.resetPassword(t, owner.ID, "owner@x.io", "a-brand-new-pass")
				} else {
					expect(t, h.post("/api/auth/logout", ownerNow, map[string]any{"all": true}), 200,
						`{"success":true,"message":"logged out everywhere"}`)
				}
				expect(t, h.get("/api/users/user/"+owner.ID, thief.Token), 401, "")
				expect(t, h.get("/api/users/user/"+owner.ID, ownerNow), 401, "")
				expect(t, h.post("/api/auth/passkeys/signin/verify", "", key.get(h.signInOptions(t))), 401, errPasskeyCredentials)
				stream.ends(time.Second, "revoked")
				m, _ := h.Mail.Last("owner@x.io")
				for _, want := range []string{"Passkeys removed: 1", "Sign-in methods unlinked: Google", "Sessions signed out: "} {
					if !strings.Contains(m.Text, want) {
						t.Fatalf("the mail does not say %q:\n%s", want, m.Text)
					}
				}
				// The request and the code made with the thief's session are gone:
				// the accomplice's submit pairs nobody.
				expect(t, h.submitCode(accomplice, ownerCode), 400, "")
				if st := h.pairingStatus(accomplice).JSON(t)["state"]; st != "unpaired" {
					t.Fatalf("the accomplice is %v", st)
				}
				back := h.loginAs("owner@x.io", map[bool]string{true: "a-brand-new-pass", false: pw}[panic == "reset"], nil)
				expect(t, back, 200, "")
				u := user{ID: owner.ID, Token: back.JSON(t)["token"].(string)}
				if got := h.methodsOf(t, u); !slices.Equal(got, []string{"password"}) {
					t.Fatalf("after the panic button: %v", got)
				}
			}, withPasskeys())
		})
	}
}
