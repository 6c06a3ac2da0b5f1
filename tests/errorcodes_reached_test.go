package tests

import (
	"testing"
)

// Error codes no other black-box test answered: each provoked once here, so
// that the end-of-package check (errorcodes_test.go) sees every documented
// code answered.

// TestSignInWithoutAnEmailTheFirstTime: an ID token that carries no e-mail
// cannot create an account (400 email_required).
func TestSignInWithoutAnEmailTheFirstTime(t *testing.T) {
	eachProfileSigningIn(t, func(t *testing.T, h *harness, p idProviders) {
		expect(t, h.signInWith("apple", p.apple.Sign(t, h.appleClaims(p, "apple-no-mail", "")), nil), 400,
			errBody("email_required", "the ID token carries no e-mail; the first sign-in needs one"))
	})
}

// TestPasskeyRegistrationRefusals: an answer that is not one (400
// invalid_registration), a passkey another user holds (409
// passkey_exists), a registration past the 20 passkeys a user may hold
// (409 too_many_passkeys).
func TestPasskeyRegistrationRefusals(t *testing.T) {
	parallel(t)
	h := newHarness(t, profile{name: "memory"}, withPasskeys(), withEnv("TANDEM_RATE_LIMIT_IP", "100000"))
	ann, ben := h.newUser("ann@example.com"), h.newUser("ben@example.com")

	challengeOf(t, h.post("/api/auth/passkeys/register/options", ann.Token, nil))
	expect(t, h.post("/api/auth/passkeys/register/verify", ann.Token, map[string]any{"id": "x"}), 400,
		errBody("invalid_registration", "the passkey answer could not be read"))

	k := newSoftKey(t)
	h.registerPasskey(t, ann, k)
	ch, uh := challengeOf(t, h.post("/api/auth/passkeys/register/options", ben.Token, nil))
	expect(t, h.post("/api/auth/passkeys/register/verify", ben.Token, k.create(ch, uh)), 409,
		errBody("passkey_exists", "this passkey is already registered"))

	for range 19 {
		h.registerPasskey(t, ann, newSoftKey(t))
	}
	expect(t, h.post("/api/auth/passkeys/register/options", ann.Token, nil), 409,
		errBody("too_many_passkeys", "a user may hold at most 20 passkeys: delete one first"))
}
