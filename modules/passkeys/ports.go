package passkeys

import (
	"context"
	"time"

	"tandem/core"
)

// Repository stores passkeys and challenges.
type Repository interface {
	// Create stores a new passkey: core.KindConflict (passkey_exists) when
	// its credential id is already registered, to anyone; core.KindConflict
	// (too_many_passkeys) when its user already holds max.
	Create(ctx context.Context, p Passkey, max int) error
	// List returns the user's passkeys, oldest first ([] when none).
	List(ctx context.Context, userID string) ([]Passkey, error)
	// ByCredential returns the passkey of a credential id:
	// core.KindNotFound (passkey_not_found) when none.
	ByCredential(ctx context.Context, credentialID []byte) (Passkey, error)
	// RecordUse loads the passkey, locked, runs decide on it and stores
	// what it returns, in one transaction: core.KindNotFound
	// (passkey_not_found) when none; decide's error is returned as is,
	// nothing written.
	RecordUse(ctx context.Context, id string, decide UseDecision) (Passkey, error)
	// Delete removes the user's passkey id: core.KindNotFound
	// (passkey_not_found) when the user holds no such passkey.
	Delete(ctx context.Context, userID, id string) error
	// DeleteByUser removes the user's passkeys and challenges; idempotent.
	DeleteByUser(ctx context.Context, userID string) error

	// CreateChallenge stores a begun ceremony's challenge.
	CreateChallenge(ctx context.Context, c Challenge) error
	// TakeChallenge loads the challenge id, locked, runs decide on it and
	// deletes the row when decide spends it, in one transaction; it
	// returns the challenge and decide's error (after the commit, so a
	// spent challenge stays spent). core.KindNotFound
	// (challenge_not_found) when there is none: of concurrent takes, one
	// finds it.
	TakeChallenge(ctx context.Context, id string, decide ChallengeDecision) (Challenge, error)
	// PurgeChallenges deletes the challenges expired at now.
	PurgeChallenges(ctx context.Context, now time.Time) error
}

// Holder is how a user is named to their authenticator.
type Holder struct {
	UserID      string
	Name        string // the e-mail
	DisplayName string // the profile's, else the e-mail
}

// Client is who calls a sign-in, for its counter and the session.
type Client struct{ IP, UserAgent string }

// Accounts is what passkeys ask of the accounts module.
type Accounts interface {
	// Holder names the user: core.KindNotFound (user_not_found) when
	// there is no such account.
	Holder(ctx context.Context, userID string) (Holder, error)
	// StartSession signs in a user proven by a passkey: a new token, as a
	// login's. core.KindNotFound when the account is gone,
	// core.KindForbidden (email_not_verified) before verification.
	StartSession(ctx context.Context, userID string, cl Client) (string, error)
	// RemovePasskey removes the user's passkey id while the account keeps
	// another way in, one decision over all of them under one lock:
	// core.KindNotFound (passkey_not_found) for a passkey the user does not
	// hold, core.KindConflict (last_signin_method) for the last way in.
	RemovePasskey(ctx context.Context, userID, id string) error
	// PasskeyAdded tells the owner a passkey was added (a mail and a
	// notification: one planted by someone else is seen).
	PasskeyAdded(ctx context.Context, userID string) error
	// FirstPasskeyChanges are the change feed's changes of the user's
	// first passkey added (their profile's sign-in methods gain it),
	// recorded with the write that stores it.
	FirstPasskeyChanges(ctx context.Context, userID string) ([]core.Change, error)
}

// Options are a begun ceremony's options for the client, and what the
// server keeps of it.
type Options struct {
	JSON      []byte // {"publicKey": {...}} for navigator.credentials
	Challenge string // the challenge in the options, as the answer carries it
	Session   []byte
}

// Answer is a client's parsed answer to a ceremony.
type Answer struct {
	Challenge    string // the challenge the answer signs
	CredentialID []byte // the credential used
	UserHandle   []byte // sign-in: the user id the authenticator holds
	Parsed       any    // the adapter's own parse, for Finish*
}

// Ceremonies is the WebAuthn relying party (adapters/webauthn). Parse and
// Finish errors are refusals of the client's answer (any error: the
// service maps them to its own codes).
type Ceremonies interface {
	BeginRegistration(h Holder, existing []Passkey) (Options, error)
	ParseRegistration(body []byte) (Answer, error)
	// FinishRegistration verifies the answer against the session and
	// returns the new passkey (no ID, user or times: the service's).
	FinishRegistration(h Holder, existing []Passkey, session []byte, a Answer) (Passkey, error)
	BeginSignIn() (Options, error)
	ParseSignIn(body []byte) (Answer, error)
	// FinishSignIn verifies the assertion by key's public key and returns
	// key with the new counter and details; a counter that went backwards
	// (a possible clone) is an error.
	FinishSignIn(h Holder, key Passkey, session []byte, a Answer) (Passkey, error)
}
