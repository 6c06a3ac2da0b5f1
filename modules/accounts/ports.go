package accounts

import (
	"context"
	"time"
)

// Repository stores accounts, their one-time codes and their session tokens.
// Get/GetByEmail/GetCode/Session return core.KindNotFound when absent; Create
// returns core.KindConflict when the e-mail is taken. Every method is one
// transaction.
type Repository interface {
	Create(ctx context.Context, a Account) error
	Get(ctx context.Context, id string) (Account, error)
	GetByEmail(ctx context.Context, email string) (Account, error)
	UpdateProfile(ctx context.Context, a Account) error
	// SetAdmin grants or revokes the stored administrator flag by e-mail.
	SetAdmin(ctx context.Context, email string, admin bool) error
	// Delete removes the account, its codes and tokens, returning the token hashes.
	Delete(ctx context.Context, id string) ([]string, error)

	// PutCode stores c, replacing the user's earlier code of the same purpose.
	PutCode(ctx context.Context, c Code) error
	GetCode(ctx context.Context, userID string, p Purpose) (Code, error)
	// TakeCodeAttempt adds one try to the code and returns the code with the
	// try counted, atomically (one update and read in one transaction), so
	// that concurrent guesses cannot pass the limit; core.KindNotFound when
	// there is no code.
	TakeCodeAttempt(ctx context.Context, userID string, p Purpose) (Code, error)
	// ProveCode notes that the code whose hash is codeHash was proven (reset
	// step 2), gives back the try that proving it took, and stores the hash
	// of the reset token handed out for it. A code replaced meanwhile gives
	// core.KindInvalid.
	ProveCode(ctx context.Context, userID string, p Purpose, codeHash, proofHash string, at, proofExpires time.Time) error
	// Verify consumes the verification code whose hash is codeHash, marks the
	// account verified and stores the first token, all or nothing. A code
	// consumed meanwhile gives core.KindInvalid (single use).
	Verify(ctx context.Context, userID, codeHash string, t Token) error
	// ResetPassword consumes the proven reset code whose hash is codeHash
	// (the service has checked the proof), sets the password, marks the
	// e-mail verified, revokes every token and stores t, all or nothing; it
	// returns the revoked token hashes. A code consumed or replaced meanwhile
	// gives core.KindInvalid (single use).
	ResetPassword(ctx context.Context, userID, codeHash, hash string, now time.Time, t Token) ([]string, error)

	// CreateToken stores t and revokes the user's oldest tokens beyond max,
	// returning their hashes.
	CreateToken(ctx context.Context, t Token, max int) ([]string, error)
	// Session resolves a token hash to its account (joined, one query).
	Session(ctx context.Context, tokenHash string) (Session, error)
	// TouchToken records when a token was last used.
	TouchToken(ctx context.Context, tokenHash string, at time.Time) error
	DeleteToken(ctx context.Context, tokenHash string) error
	// Tokens lists the user's tokens, newest first.
	Tokens(ctx context.Context, userID string) ([]Token, error)
	// DeleteSession revokes the user's token with that session id and
	// returns its hash; core.KindNotFound when the user has no such session.
	DeleteSession(ctx context.Context, userID, sessionID string) (string, error)
	// DeleteTokens revokes every token of the user and returns their hashes.
	DeleteTokens(ctx context.Context, userID string) ([]string, error)
	// Purge deletes tokens and codes (reset proofs included) that expired
	// before now, and returns how many.
	Purge(ctx context.Context, now time.Time) (int, error)
}

// Mail is one plain-text message.
type Mail struct {
	To      string
	Subject string
	Text    string
}

// Mailer delivers mail. It returns core.KindUnavailable when the relay
// cannot be reached or refuses the message.
type Mailer interface {
	Send(ctx context.Context, m Mail) error
}

// PasswordHasher hashes passwords (argon2id in production).
type PasswordHasher interface {
	Hash(password string) (string, error)
	// Verify reports whether password matches hash; an unparsable hash is an error.
	Verify(hash, password string) (bool, error)
}

// SessionCache is a short-lived read cache of resolved tokens, in front of
// Repository.Session. Entries live at most a few seconds so that a token
// revoked by another process dies quickly; this process forgets at once.
type SessionCache interface {
	Get(tokenHash string) (Session, bool)
	Put(tokenHash string, s Session)
	Forget(tokenHashes ...string)
}
