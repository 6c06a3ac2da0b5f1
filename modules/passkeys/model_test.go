package passkeys_test

import (
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/passkeys"
)

var at = time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)

func TestSpend(t *testing.T) {
	reg := passkeys.Challenge{UserID: "u1", Purpose: passkeys.PurposeRegister, ExpiresAt: at.Add(time.Minute)}
	in := passkeys.Challenge{Purpose: passkeys.PurposeSignIn, ExpiresAt: at.Add(time.Minute)}
	for _, tc := range []struct {
		name    string
		c       passkeys.Challenge
		purpose passkeys.Purpose
		user    string
		now     time.Time
		spend   bool
		code    string
	}{
		{"a registration by its user", reg, passkeys.PurposeRegister, "u1", at, true, ""},
		{"a sign-in", in, passkeys.PurposeSignIn, "", at, true, ""},
		{"the last instant is past", reg, passkeys.PurposeRegister, "u1", at.Add(time.Minute), true, "invalid_challenge"},
		{"an expired sign-in", in, passkeys.PurposeSignIn, "", at.Add(time.Hour), true, "invalid_credentials"},
		{"another user's registration is kept", reg, passkeys.PurposeRegister, "u2", at, false, "invalid_challenge"},
		{"a registration challenge signs no one in", reg, passkeys.PurposeSignIn, "", at, false, "invalid_credentials"},
		{"a sign-in challenge registers nothing", in, passkeys.PurposeRegister, "u1", at, false, "invalid_challenge"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spend, err := passkeys.Spend(tc.purpose, tc.user, tc.now)(tc.c)
			if spend != tc.spend || (tc.code == "") != (err == nil) || (err != nil && core.As(err).Code != tc.code) {
				t.Fatalf("spend %v, err %v; want %v, %q", spend, err, tc.spend, tc.code)
			}
		})
	}
}

func TestUse(t *testing.T) {
	stored := passkeys.Passkey{ID: "k1", SignCount: 5, Details: []byte("old")}
	for _, tc := range []struct {
		name           string
		stored, signed uint32
		ok             bool
	}{
		{"the counter moves on", 5, 6, true},
		{"the counter jumps", 5, 500, true},
		{"the same counter: a clone?", 5, 5, false},
		{"a counter gone back", 5, 4, false},
		{"an authenticator without a counter", 0, 0, true},
		{"a counter that starts", 0, 1, true},
		{"a counter that stops", 5, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := stored
			s.SignCount = tc.stored
			got, err := passkeys.Use(passkeys.Passkey{SignCount: tc.signed, Details: []byte("new")}, at)(s)
			if tc.ok != (err == nil) {
				t.Fatalf("err %v, want ok %v", err, tc.ok)
			}
			if err != nil {
				if core.As(err).Code != "invalid_credentials" {
					t.Fatalf("code %v", err)
				}
				return
			}
			if got.ID != "k1" || got.SignCount != tc.signed || string(got.Details) != "new" || !got.LastUsedAt.Equal(at) {
				t.Fatalf("stored %+v", got)
			}
		})
	}
}
