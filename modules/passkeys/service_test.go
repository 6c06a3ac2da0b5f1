package passkeys_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"tandem/adapters/memory"
	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/passkeys"
	"tandem/modules/throttle"
)

var ctx = context.Background()

// fakeRP is a relying party whose answers are JSON the tests write:
// {challenge, credentialId, userHandle, count, bad}.
type fakeRP struct{ n int }

type fakeAnswer struct {
	Challenge    string `json:"challenge"`
	CredentialID string `json:"credentialId"`
	UserHandle   string `json:"userHandle"`
	Count        uint32 `json:"count"`
	Bad          bool   `json:"bad"`
}

func (f *fakeRP) begin() (passkeys.Options, error) {
	f.n++
	ch := fmt.Sprint("challenge-", f.n)
	return passkeys.Options{JSON: []byte(`{"publicKey":{"challenge":"` + ch + `"}}`), Challenge: ch, Session: []byte(ch)}, nil
}

func (f *fakeRP) parse(body []byte) (passkeys.Answer, error) {
	var a fakeAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		return passkeys.Answer{}, err
	}
	return passkeys.Answer{Challenge: a.Challenge, CredentialID: []byte(a.CredentialID), UserHandle: []byte(a.UserHandle), Parsed: a}, nil
}

func (f *fakeRP) finish(session []byte, a passkeys.Answer) (passkeys.Passkey, error) {
	fa := a.Parsed.(fakeAnswer)
	if fa.Bad || string(session) != fa.Challenge {
		return passkeys.Passkey{}, errors.New("bad signature")
	}
	return passkeys.Passkey{CredentialID: []byte(fa.CredentialID), PublicKey: []byte("key"), SignCount: fa.Count}, nil
}

func (f *fakeRP) BeginRegistration(passkeys.Holder, []passkeys.Passkey) (passkeys.Options, error) {
	return f.begin()
}
func (f *fakeRP) ParseRegistration(b []byte) (passkeys.Answer, error) { return f.parse(b) }
func (f *fakeRP) FinishRegistration(_ passkeys.Holder, _ []passkeys.Passkey, s []byte, a passkeys.Answer) (passkeys.Passkey, error) {
	return f.finish(s, a)
}
func (f *fakeRP) BeginSignIn() (passkeys.Options, error)        { return f.begin() }
func (f *fakeRP) ParseSignIn(b []byte) (passkeys.Answer, error) { return f.parse(b) }
func (f *fakeRP) FinishSignIn(_ passkeys.Holder, key passkeys.Passkey, s []byte, a passkeys.Answer) (passkeys.Passkey, error) {
	p, err := f.finish(s, a)
	key.SignCount = p.SignCount
	return key, err
}

// accountsFake knows u1 (verified) and u2 (not verified).
type accountsFake struct{}

func (accountsFake) Holder(_ context.Context, userID string) (passkeys.Holder, error) {
	if userID != "u1" && userID != "u2" {
		return passkeys.Holder{}, core.NotFound("user_not_found", "passkeys.userNotFound", "user not found")
	}
	return passkeys.Holder{UserID: userID, Name: userID + "@example.com", DisplayName: userID}, nil
}

// RemovePasskey is the accounts module's to decide (its own tests).
func (accountsFake) RemovePasskey(context.Context, string, string) error { return nil }

func (accountsFake) PasskeyAdded(context.Context, string) error { return nil }

func (accountsFake) FirstPasskeyChanges(context.Context, string) ([]core.Change, error) {
	return nil, nil
}

func (accountsFake) StartSession(_ context.Context, userID string, _ passkeys.Client) (string, error) {
	if userID == "u2" {
		return "", core.Forbidden("email_not_verified", "passkeys.verifyMailBeforeLogging", "verify your e-mail before logging in")
	}
	return "token-of-" + userID, nil
}

type fixture struct {
	svc   *passkeys.Service
	clock *coretest.FixedClock
}

func newFixture(rp passkeys.Ceremonies) fixture {
	clock := coretest.NewClock(time.Time{})
	limiter := throttle.NewLimiter(memory.NewThrottleRepo(), clock)
	return fixture{svc: passkeys.NewService(memory.NewPasskeyRepo(), accountsFake{}, rp, limiter, clock, &coretest.SeqIDs{}, nil), clock: clock}
}

func answer(a fakeAnswer) []byte { b, _ := json.Marshal(a); return b }

// challenge reads the challenge of an options answer: challenge(t)(f.svc.SignInOptions(ctx)).
func challenge(t *testing.T) func(opts []byte, err error) string {
	return func(opts []byte, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		var o struct {
			PublicKey struct{ Challenge string } `json:"publicKey"`
		}
		if err := json.Unmarshal(opts, &o); err != nil {
			t.Fatal(err)
		}
		return o.PublicKey.Challenge
	}
}

func (f fixture) register(t *testing.T, user, cred string) {
	t.Helper()
	ch := challenge(t)(f.svc.RegisterOptions(ctx, user, f.clock.Now()))
	if _, err := f.svc.Register(ctx, user, f.clock.Now(), answer(fakeAnswer{Challenge: ch, CredentialID: cred})); err != nil {
		t.Fatal(err)
	}
}

func (f fixture) signIn(t *testing.T, a fakeAnswer) (string, error) {
	t.Helper()
	a.Challenge = challenge(t)(f.svc.SignInOptions(ctx))
	_, token, err := f.svc.SignIn(ctx, answer(a), passkeys.Client{IP: "192.0.2.1"})
	return token, err
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if err == nil || core.As(err).Code != code {
		t.Fatalf("want %s, got %v", code, err)
	}
}

func TestAddingAPasskeyNeedsARecentSignIn(t *testing.T) {
	f := newFixture(&fakeRP{})
	signedIn := f.clock.Now()
	f.clock.Advance(core.ReauthWindow + time.Second)
	_, err := f.svc.RegisterOptions(ctx, "u1", signedIn)
	wantCode(t, err, "reauthentication_required")
	_, err = f.svc.RegisterOptions(ctx, "u1", time.Time{})
	wantCode(t, err, "reauthentication_required")
	ch := challenge(t)(f.svc.RegisterOptions(ctx, "u1", f.clock.Now()))
	_, err = f.svc.Register(ctx, "u1", signedIn, answer(fakeAnswer{Challenge: ch, CredentialID: "cred-1"}))
	wantCode(t, err, "reauthentication_required")
	if ps, _ := f.svc.List(ctx, "u1"); len(ps) != 0 {
		t.Fatalf("a refused registration stored %d passkeys", len(ps))
	}
}

func TestPasskeysOff(t *testing.T) {
	f := newFixture(nil)
	_, err := f.svc.RegisterOptions(ctx, "u1", f.clock.Now())
	wantCode(t, err, "passkeys_disabled")
	_, err = f.svc.Register(ctx, "u1", f.clock.Now(), []byte(`{}`))
	wantCode(t, err, "passkeys_disabled")
	_, err = f.svc.SignInOptions(ctx)
	wantCode(t, err, "passkeys_disabled")
	_, _, err = f.svc.SignIn(ctx, []byte(`{}`), passkeys.Client{})
	wantCode(t, err, "passkeys_disabled")
	if ps, err := f.svc.List(ctx, "u1"); err != nil || len(ps) != 0 {
		t.Fatalf("the list still answers: %v %v", ps, err)
	}
}

func TestSignInRules(t *testing.T) {
	f := newFixture(&fakeRP{})
	f.register(t, "u1", "cred-1")
	f.register(t, "u2", "cred-2")
	for _, tc := range []struct {
		name string
		a    fakeAnswer
		code string
	}{
		{"the owner", fakeAnswer{CredentialID: "cred-1", UserHandle: "u1", Count: 1}, ""},
		{"the counter did not move", fakeAnswer{CredentialID: "cred-1", UserHandle: "u1", Count: 1}, "invalid_credentials"},
		{"another user's handle", fakeAnswer{CredentialID: "cred-1", UserHandle: "u2", Count: 2}, "invalid_credentials"},
		{"an unknown credential", fakeAnswer{CredentialID: "cred-9", UserHandle: "u1", Count: 2}, "invalid_credentials"},
		{"a bad signature", fakeAnswer{CredentialID: "cred-1", UserHandle: "u1", Count: 2, Bad: true}, "invalid_credentials"},
		{"an unverified account", fakeAnswer{CredentialID: "cred-2", UserHandle: "u2", Count: 1}, "email_not_verified"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			token, err := f.signIn(t, tc.a)
			if tc.code == "" {
				if err != nil || token != "token-of-u1" {
					t.Fatalf("%q %v", token, err)
				}
				return
			}
			wantCode(t, err, tc.code)
		})
	}
}

// TestSignInAttemptsAreCountedPerIP: failures reach the limit; successes
// give their attempt back, so an owner signing in often never does.
func TestSignInAttemptsAreCountedPerIP(t *testing.T) {
	f := newFixture(&fakeRP{})
	f.register(t, "u1", "cred-1")
	for i := range 30 {
		if _, err := f.signIn(t, fakeAnswer{CredentialID: "cred-1", UserHandle: "u1", Count: uint32(i + 1)}); err != nil {
			t.Fatalf("sign-in %d: %v", i, err)
		}
	}
	var err error
	for range 11 {
		_, err = f.signIn(t, fakeAnswer{CredentialID: "cred-9", UserHandle: "u1"})
	}
	wantCode(t, err, "rate_limited")
	f.clock.Advance(15 * time.Minute)
	if _, err := f.signIn(t, fakeAnswer{CredentialID: "cred-1", UserHandle: "u1", Count: 99}); err != nil {
		t.Fatalf("after the window: %v", err)
	}
}

func TestRegisterRules(t *testing.T) {
	f := newFixture(&fakeRP{})
	for i := range passkeys.MaxPasskeys {
		f.register(t, "u1", fmt.Sprint("cred-", i))
	}
	_, err := f.svc.RegisterOptions(ctx, "u1", f.clock.Now())
	wantCode(t, err, "too_many_passkeys")
	_, err = f.svc.RegisterOptions(ctx, "nobody", f.clock.Now())
	wantCode(t, err, "user_not_found")

	ch := challenge(t)(f.svc.RegisterOptions(ctx, "u2", f.clock.Now()))
	_, err = f.svc.Register(ctx, "u2", f.clock.Now(), answer(fakeAnswer{Challenge: ch, CredentialID: "cred-0"}))
	wantCode(t, err, "passkey_exists")
	_, err = f.svc.Register(ctx, "u2", f.clock.Now(), answer(fakeAnswer{Challenge: ch, CredentialID: "cred-x"}))
	wantCode(t, err, "invalid_challenge") // spent by the first verify, though it failed
	ch = challenge(t)(f.svc.RegisterOptions(ctx, "u2", f.clock.Now()))
	_, err = f.svc.Register(ctx, "u2", f.clock.Now(), answer(fakeAnswer{Challenge: ch, CredentialID: "cred-x", Bad: true}))
	wantCode(t, err, "invalid_registration")
	_, err = f.svc.Register(ctx, "u2", f.clock.Now(), []byte(`not json`))
	wantCode(t, err, "invalid_registration")
}
