package accounts_test

import (
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/accounts"
)

// The code decisions on a code and account as a repository loads them: no
// adapter, no service.

func TestCodeDecisions(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)
	acc := accounts.Account{ID: "u1", Email: "a@x.io"}
	verify := accounts.Code{UserID: "u1", Purpose: accounts.PurposeVerify, Hash: "vc", Attempts: 2, ExpiresAt: now.Add(time.Hour)}
	reset := accounts.Code{UserID: "u1", Purpose: accounts.PurposeReset, Hash: "rc", Attempts: 2, ExpiresAt: now.Add(time.Hour)}
	proven := reset
	proven.VerifiedAt, proven.ProofHash = now, "ph"
	tok := accounts.Token{Hash: "t1", UserID: "u1"}
	counted := func(c accounts.Code, n int) *accounts.Code { c.Attempts = n; return &c }
	provedAt := func(c accounts.Code) *accounts.Code {
		c.VerifiedAt, c.ProofHash, c.ProofExpiresAt, c.Attempts = now, "proof", now.Add(10*time.Minute), c.Attempts-1
		return &c
	}
	zeroTries := reset
	zeroTries.Attempts = 0
	cases := []struct {
		name   string
		decide accounts.CodeDecision
		code   accounts.Code
		want   accounts.CodeUpdate
		err    string // the error's code; the update is then zero
	}{
		{"a try is counted", accounts.CountTry, verify, accounts.CodeUpdate{Code: counted(verify, 3)}, ""},
		{"a reset is proven, its try given back", accounts.ProveReset("rc", "proof", now, now.Add(10*time.Minute)), reset,
			accounts.CodeUpdate{Code: provedAt(reset)}, ""},
		{"a proof never takes the count below zero", accounts.ProveReset("rc", "proof", now, now.Add(10*time.Minute)), zeroTries,
			accounts.CodeUpdate{Code: counted(*provedAt(zeroTries), 0)}, ""},
		{"proving a code replaced meanwhile", accounts.ProveReset("old", "proof", now, now), reset, accounts.CodeUpdate{}, "invalid_code"},
		{"proving a sign-up code", accounts.ProveReset("vc", "proof", now, now), verify, accounts.CodeUpdate{}, "invalid_code"},
		{"the sign-up code is spent: verified, every earlier way in ended, first token", accounts.SpendVerification("vc", tok), verify,
			accounts.CodeUpdate{Consume: true, Verify: true, Token: &tok, EndWaysIn: true}, ""},
		{"a sign-up code replaced meanwhile", accounts.SpendVerification("old", tok), verify, accounts.CodeUpdate{}, "invalid_code"},
		{"a reset code is no sign-up code", accounts.SpendVerification("rc", tok), reset, accounts.CodeUpdate{}, "invalid_code"},
		{"a proven reset is spent: password, every earlier way in ended, verified, token", accounts.SpendReset("rc", "newhash", now, tok), proven,
			accounts.CodeUpdate{Consume: true, Verify: true, PasswordHash: "newhash", At: now, Token: &tok, EndWaysIn: true}, ""},
		{"a reset not proven", accounts.SpendReset("rc", "newhash", now, tok), reset, accounts.CodeUpdate{}, "invalid_code"},
		{"a reset code replaced after its proof", accounts.SpendReset("other", "newhash", now, tok), proven,
			accounts.CodeUpdate{}, "invalid_code"},
	}
	verified := acc
	verified.Verified = true
	if u, err := accounts.SpendVerification("vc", tok)(verify, verified); core.As(err).Code != "invalid_code" || u.EndWaysIn {
		t.Fatalf("a sign-up code on an account verified meanwhile: %+v %v", u, err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.decide(tc.code, acc)
			if tc.err != "" {
				if err == nil || core.As(err).Code != tc.err || got.Code != nil || got.Consume || got.Token != nil {
					t.Fatalf("want %s and no update, got %+v %v", tc.err, got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (got.Code == nil) != (tc.want.Code == nil) || got.Code != nil && *got.Code != *tc.want.Code ||
				(got.Token == nil) != (tc.want.Token == nil) || got.Token != nil && *got.Token != *tc.want.Token {
				t.Fatalf("got %+v (code %+v), want %+v (code %+v)", got, got.Code, tc.want, tc.want.Code)
			}
			got.Code, got.Token, tc.want.Code, tc.want.Token = nil, nil, nil, nil
			if got != tc.want {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
