package accounts

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"tandem/core"
)

// Sign in with Apple gives the app, beside the ID token, an authorization
// code. Redeemed at Apple's token endpoint it yields a refresh token: the
// grant that, revoked, ends the user's Sign in with Apple for the app, as
// App Review wants an account deletion to do. The grant is kept sealed
// (Sealer) on its identity, and every removal of the identity (account
// deletion, unlink, the ends of ways in) moves it, in the same transaction,
// to the Revocations queue, which the Revoker empties off every request: a
// grant is never forgotten before Apple took its revocation.

// MaxAuthorizationCode bounds the code read (Apple's are under 100 bytes);
// MaxSealedGrant a sealed grant, the width of its columns (Apple's refresh
// tokens are under 100 bytes too).
const (
	MaxAuthorizationCode = 1024
	MaxSealedGrant       = 2048
)

// ProviderGrants redeems a provider's authorization code and revokes what
// it granted (adapters/signin: Apple's token and revoke endpoints).
type ProviderGrants interface {
	// Exchange redeems code, issued to client: the refresh token, and the
	// subject of the ID token the provider answers with.
	// core.KindUnauthorized (ErrAuthorizationCode) when the provider refuses
	// the code; core.KindUnavailable, with a RetryAfter, when it cannot be
	// reached or answers 5xx or 429; anything else is internal (the
	// provider refused our client: a configuration fault).
	Exchange(ctx context.Context, provider, client, code string) (Grant, error)
	// Revoke revokes refreshToken, issued to client: an error wrapping
	// ErrGrantGone when the provider refuses the token for good (it is dead
	// already); any other error is tried again later.
	Revoke(ctx context.Context, provider, client, refreshToken string) error
}

// ErrGrantGone is a revocation the provider refuses because the grant is
// no longer valid: there is nothing left to revoke.
var ErrGrantGone = errors.New("accounts: the provider no longer knows the grant")

// Grant is what an Exchange yields.
type Grant struct {
	RefreshToken string
	Subject      string // the sub of the ID token in the provider's answer
}

// Sealer encrypts what is kept at rest and must be read again
// (adapters/sealing: AES-GCM under TANDEM_ENCRYPTION_KEY). A value sealed
// with one context opens only with it.
type Sealer interface {
	Seal(plain, context string) (string, error)
	Open(sealed, context string) (string, error)
}

// ErrAuthorizationCode is the answer to a code the provider refuses (used,
// expired, forged, another app's) or that belongs to another subject than
// the ID token beside it: 401, as any fault of the token is, and nothing
// is created. The app starts Sign in with Apple again.
func ErrAuthorizationCode() error {
	return core.Unauthorized("invalid_token", "accounts.authorizationCodeNotValidSign", "the authorization code is not valid; sign in with Apple again")
}

// sealedGrant is the plain text a stored grant seals: the client it was
// issued to goes with it (the revocation names it).
type sealedGrant struct {
	Client string `json:"client"`
	Token  string `json:"token"`
}

// grantContext binds a sealed grant to its identity.
func grantContext(provider, subject string) string { return provider + ":" + subject }

// Revocation is a grant waiting in the Revocations queue.
type Revocation struct {
	ID       string // RevocationID(Token)
	Provider string
	Subject  string
	UserID   string // the account it was linked to (for the log; it may be deleted)
	Token    string // the sealed grant, as the identity held it
	Attempts int    // failed revocations so far
	// NextAttemptAt is when it is due; zero: at once.
	NextAttemptAt time.Time
	// Claim and ClaimedUntil are the lease of the process revoking it.
	Claim        string
	ClaimedUntil time.Time
}

// RevocationID is the queue's id of a sealed grant: the same grant is
// queued once, whichever removal queued it.
func RevocationID(sealed string) string {
	sum := sha256.Sum256([]byte(sealed))
	return hex.EncodeToString(sum[:16])
}

// RevocationOf is the revocation of the sealed grant an identity held,
// due at once.
func RevocationOf(provider, subject, userID, sealed string) Revocation {
	return Revocation{ID: RevocationID(sealed), Provider: provider, Subject: subject, UserID: userID, Token: sealed}
}

// Revocations is the database queue of grants to revoke. A removal of an
// identity fills it in its own transaction (Repository); the Revoker
// empties it with leases, as the mail Outbox is emptied.
type Revocations interface {
	// QueueRevocation queues r; nothing when a revocation with its id waits
	// already.
	QueueRevocation(ctx context.Context, r Revocation) error
	// DueRevocations lists up to limit revocations due at now (next
	// attempt reached, no live claim), soonest due first.
	DueRevocations(ctx context.Context, now time.Time, limit int) ([]Revocation, error)
	// ClaimRevocation takes it until until under claim if it is still due
	// and unclaimed at now; false when it is not.
	ClaimRevocation(ctx context.Context, id, claim string, now, until time.Time) (bool, error)
	// RetryRevocation gives a claimed revocation back with its attempts
	// counted, due again at next; nothing when the claim was lost.
	RetryRevocation(ctx context.Context, id, claim string, attempts int, next time.Time) error
	// ForgetRevocation deletes the revocation this claim holds (done, or
	// given up); nothing when the claim was lost.
	ForgetRevocation(ctx context.Context, id, claim string) error
	// PendingRevocations counts the revocations waiting.
	PendingRevocations(ctx context.Context) (int, error)
}

// redeem exchanges the authorization code sent beside an Apple ID token
// (claim c, verified) for its grant, sealed for the identity: "" without a
// code, or without Apple's key configured (the code is then ignored and the
// sign-in goes on with the ID token alone, as before codes were taken).
// Apple unreachable: 503 with Retry-After, nothing spent or written, so the
// same request may be sent again. A code Apple refuses, or one whose ID
// token names another subject than c: 401, and nothing is kept.
//
// A grant that is not kept (that case, or a sign-in failing after the
// exchange) is dropped, never revoked: revoking any of a user's grants ends
// the whole authorization of that user and app at Apple, and so the grant
// an identity of theirs may hold and their app's signed-in state. Only the
// grant of an identity that goes is revoked.
func (s *Service) redeem(ctx context.Context, c IdentityClaim, code string) (string, error) {
	if code == "" || s.grants == nil || c.Provider != ProviderApple {
		return "", nil
	}
	if len(code) > MaxAuthorizationCode {
		return "", ErrAuthorizationCode()
	}
	g, err := s.grants.Exchange(ctx, c.Provider, c.Client, code)
	if err != nil {
		return "", err
	}
	if g.Subject != c.Subject {
		return "", ErrAuthorizationCode()
	}
	if g.RefreshToken == "" {
		return "", core.Internal(errors.New("accounts: the provider's answer carries no refresh token"))
	}
	plain, err := json.Marshal(sealedGrant{Client: c.Client, Token: g.RefreshToken})
	if err != nil {
		return "", core.Internal(err)
	}
	sealed, err := s.sealer.Seal(string(plain), grantContext(c.Provider, c.Subject))
	if err != nil {
		return "", core.Internal(err)
	}
	if len(sealed) > MaxSealedGrant {
		return "", core.Internal(fmt.Errorf("accounts: a sealed grant of %d bytes, more than %d", len(sealed), MaxSealedGrant))
	}
	return sealed, nil
}

// wakeRevoker asks for a revocation pass after a commit that may have
// queued some.
func (s *Service) wakeRevoker() {
	if s.revoker != nil {
		s.revoker.Wake()
	}
}

// withGrant has decide's update keep the sealed grant on the identity.
func withGrant(decide SignInDecision, sealed string) SignInDecision {
	if sealed == "" {
		return decide
	}
	return func(st SignInState) (SignInUpdate, error) {
		u, err := decide(st)
		u.RefreshToken = sealed
		return u, err
	}
}

// openGrant reads a queued revocation's grant: its client and token.
func openGrant(sealer Sealer, r Revocation) (sealedGrant, error) {
	plain, err := sealer.Open(r.Token, grantContext(r.Provider, r.Subject))
	if err != nil {
		return sealedGrant{}, err
	}
	var g sealedGrant
	if err := json.Unmarshal([]byte(plain), &g); err != nil || g.Token == "" {
		return sealedGrant{}, errors.New("accounts: a sealed grant without its token")
	}
	return g, nil
}
