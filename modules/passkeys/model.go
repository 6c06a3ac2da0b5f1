// Package passkeys holds the passkey (WebAuthn) rules: registration for a
// signed-in user, passwordless sign-in, the list and removal of a user's
// passkeys, and the single-use challenges of both ceremonies. The
// cryptography is the Ceremonies port's (adapters/webauthn); this package
// decides who may do what, when, and how often.
package passkeys

import (
	"crypto/sha256"
	"encoding/hex"
	"time"

	"tandem/core"
)

const (
	// ChallengeTTL is how long a ceremony's options stay usable.
	ChallengeTTL = 5 * time.Minute
	// MaxPasskeys bounds one user's passkeys.
	MaxPasskeys = 20
	// failedSignIns per client IP in failedSignInsSpan (core.Limiter).
	failedSignIns     = 10
	failedSignInsSpan = 15 * time.Minute
)

// ruleFailedSignIns counts passkey sign-ins per client IP; each attempt is
// reserved before it is checked and a success gives it back, as a
// password login does (its own rule: a passkey guesser never locks the
// password login, nor the reverse).
var ruleFailedSignIns = core.RateRule{Name: "passkey_fail_ip", Limit: failedSignIns, Window: failedSignInsSpan}

// Purpose tells the two ceremonies' challenges apart.
type Purpose string

const (
	PurposeRegister Purpose = "register"
	PurposeSignIn   Purpose = "signin"
)

// Passkey is one registered credential of a user.
type Passkey struct {
	ID           string
	UserID       string
	CredentialID []byte // the authenticator's raw credential id (unique)
	PublicKey    []byte // COSE
	SignCount    uint32
	// Details is the ceremony adapter's own record (transports, flags,
	// attestation), opaque here.
	Details    []byte
	CreatedAt  time.Time
	LastUsedAt time.Time // zero: never used to sign in
}

// Challenge is one begun ceremony, waiting for the client's answer.
type Challenge struct {
	ID        string // ChallengeID of the challenge sent
	UserID    string // the registering user; "" for a sign-in
	Purpose   Purpose
	Session   []byte // the ceremony adapter's session data, opaque here
	ExpiresAt time.Time
}

// ChallengeID is the stored key of a challenge: its SHA-256, so a database
// read never yields a usable challenge.
func ChallengeID(challenge string) string {
	sum := sha256.Sum256([]byte(challenge))
	return hex.EncodeToString(sum[:])
}

// ChallengeDecision is run by Repository.TakeChallenge on the challenge it
// has just loaded and locked. spend deletes the row (in the same
// transaction); err is the refusal, returned after the commit.
type ChallengeDecision func(c Challenge) (spend bool, err error)

// Spend is the decision of a verify: a challenge serves one ceremony of its
// purpose, for its user, once, before it expires. An expired challenge is
// spent (removed) and refused; one of another purpose or user is refused
// and kept, so a stranger cannot burn another's ceremony.
func Spend(p Purpose, userID string, now time.Time) ChallengeDecision {
	return func(c Challenge) (bool, error) {
		if c.Purpose != p || c.UserID != userID {
			return false, errChallenge(p)
		}
		if !now.Before(c.ExpiresAt) {
			return true, errChallenge(p)
		}
		return true, nil
	}
}

// UseDecision is run by Repository.RecordUse on the passkey it has just
// loaded and locked; it returns the passkey to store.
type UseDecision func(stored Passkey) (Passkey, error)

// Use is the decision of a verified sign-in: the signature counter must
// move forward unless the authenticator keeps none (both zero), else the
// credential may have been cloned and the sign-in is refused. Checked
// again here, under the lock, so two sign-ins with one counter value
// cannot both pass.
func Use(signed Passkey, now time.Time) UseDecision {
	return func(stored Passkey) (Passkey, error) {
		if (signed.SignCount != 0 || stored.SignCount != 0) && signed.SignCount <= stored.SignCount {
			return Passkey{}, errCredentials()
		}
		stored.SignCount, stored.Details, stored.LastUsedAt = signed.SignCount, signed.Details, now
		return stored, nil
	}
}

func errChallenge(p Purpose) error {
	if p == PurposeSignIn {
		return errCredentials()
	}
	return core.Invalid("invalid_challenge", "passkeys.challengeUnknownUsedExpiredAsk", "the challenge is unknown, used or expired: ask for new options")
}

func errCredentials() error {
	return core.Unauthorized("invalid_credentials", "passkeys.passkeyCouldNotVerified", "the passkey could not be verified")
}

// NotFound is the error of a passkey the user does not hold (repositories
// and the service).
func NotFound() error {
	return core.NotFound("passkey_not_found", "accounts.noSuchPasskey", "no such passkey")
}

// Exists is the error of a credential id already registered.
func Exists() error {
	return core.Conflict("passkey_exists", "passkeys.passkeyAlreadyRegistered", "this passkey is already registered")
}

// TooMany is the error of a registration past MaxPasskeys.
func TooMany() error {
	return core.Conflict("too_many_passkeys", "passkeys.userMayHoldMost20", "a user may hold at most 20 passkeys: delete one first")
}

// NoChallenge is a repository's error for a challenge it does not hold.
func NoChallenge() error {
	return core.NotFound("challenge_not_found", "passkeys.noSuchChallenge", "no such challenge")
}

func errDisabled() error {
	return core.NotFound("passkeys_disabled", "passkeys.passkeysNotEnabledServer", "passkeys are not enabled on this server")
}
