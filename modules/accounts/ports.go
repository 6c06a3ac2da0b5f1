package accounts

import (
	"context"
	"time"

	"tandem/core"
)

// Repository stores accounts, their one-time codes and their session
// tokens. Get/GetByEmail/GetCode/Session return core.KindNotFound when
// absent; Create returns core.KindConflict when the e-mail is taken. Every
// method is one transaction. The module decides, the repository loads,
// locks and writes (UpdateCode runs the module's code rules inside its
// transaction).
type Repository interface {
	AccountStore
	CodeStore
	TokenStore
	IdentityStore
	// Purge deletes tokens, codes (reset proofs included) and unclaimed
	// outbox mail that expired before now, and returns how many.
	Purge(ctx context.Context, now time.Time) (int, error)
}

// AccountStore keeps the accounts themselves.
type AccountStore interface {
	Create(ctx context.Context, a Account) error
	Get(ctx context.Context, id string) (Account, error)
	GetByEmail(ctx context.Context, email string) (Account, error)
	// GetMany returns the accounts of ids that exist, in no order; an
	// unknown id is left out. The caller bounds ids (a page of them).
	GetMany(ctx context.Context, ids []string) ([]Account, error)
	// Search lists the accounts whose e-mail starts with prefix, compared
	// as stored (prefix is in FoldEmail form), in e-mail order from the
	// page's SearchCursor: every character of prefix matches itself, LIKE
	// wildcards included. A cursor not made by SearchCursor is
	// core.KindInvalid.
	Search(ctx context.Context, prefix string, page core.Page) ([]Account, string, error)
	// List lists every account newest first (created_at, then id), from
	// the page's core.TimeCursor; a cursor it did not hand out is
	// core.KindInvalid.
	List(ctx context.Context, page core.Page) ([]Account, string, error)
	UpdateProfile(ctx context.Context, a Account) error
	// SetBlocked blocks or unblocks the account; a block revokes every
	// token of it in the same transaction and returns their hashes.
	// core.KindNotFound when there is no account.
	SetBlocked(ctx context.Context, userID string, blocked bool) ([]string, error)
	// DeleteTokens revokes every token of the user and returns their hashes.
	DeleteTokens(ctx context.Context, userID string) ([]string, error)
	// MarkVerified verifies the account's e-mail without a code (an
	// administrator vouches for it) and ends its earlier ways in, as a
	// first verification does, in one transaction. core.KindNotFound when
	// there is no account.
	MarkVerified(ctx context.Context, userID string) (Removed, error)
	// SetAdmin grants or revokes the stored administrator flag by e-mail.
	SetAdmin(ctx context.Context, email string, admin bool) error
	// Delete removes the account, its codes, tokens, identities and unsent mail,
	// returning the token hashes. Here and wherever an identity is removed
	// (EndWaysIn, RemoveWayIn, UpdateCode's EndWaysIn, SignIn's take-over),
	// the grant it held is queued for revocation (RevocationOf) in the same
	// transaction.
	Delete(ctx context.Context, id string) ([]string, error)
	// ClearPendingPassword removes the password of an account that is not
	// verified yet (nothing when it is verified, or already has none).
	ClearPendingPassword(ctx context.Context, userID string) error
	// SetPassword sets the password, revokes every token and stores t, all
	// or nothing; it returns the revoked token hashes.
	SetPassword(ctx context.Context, userID, hash string, now time.Time, t Token) ([]string, error)
	// EndWaysIn revokes every token of the user, unlinks every identity and
	// removes every passkey (and begun passkey ceremony), in one
	// transaction, and returns what went.
	EndWaysIn(ctx context.Context, userID string) (Removed, error)
	// RemoveWayIn loads the account, its identities and its passkeys' ids,
	// held against concurrent writers (another removal, a sign-in), runs
	// decide on them and removes the way when it allows, in one
	// transaction. core.KindNotFound when there is no account; decide's
	// error is returned as it is, and nothing is written.
	RemoveWayIn(ctx context.Context, userID string, w WayIn, decide WayDecision) error
	// QueueMail queues m in the Outbox (a notice: it replaces nothing).
	QueueMail(ctx context.Context, m OutboxMail) error
}

// CodeStore keeps the one-time codes (one per user and purpose).
type CodeStore interface {
	// PutCode stores c, replacing the user's earlier code of the same
	// purpose, and queues m, the mail that carries it, in the Outbox, in one
	// transaction: a code is never stored without its mail, nor mailed
	// without being stored. The replaced code's mail goes too if it is not
	// sent yet (its code is dead).
	PutCode(ctx context.Context, c Code, m OutboxMail) error
	GetCode(ctx context.Context, userID string, p Purpose) (Code, error)
	// UpdateCode loads the user's code of purpose p and the account in one
	// transaction, holding them against concurrent writers, runs decide on
	// them and writes the CodeUpdate it returns in that transaction,
	// returning the token hashes it revoked. core.KindNotFound, without
	// running decide, when there is no such code or account; decide's error
	// is returned as it is, and nothing is written. decide may run more
	// than once (a transaction that lost a deadlock runs again). What the
	// update removed (CodeUpdate.EndWaysIn, or a new password's revoked
	// tokens) is returned.
	UpdateCode(ctx context.Context, userID string, p Purpose, decide CodeDecision) (Removed, error)
}

// TokenStore keeps the session tokens (stored hashed).
type TokenStore interface {
	// CreateToken stores t and, in the same transaction, runs decide on
	// the user's other tokens and revokes the hashes it returns
	// (DecideSessions), returning them. decide may run more than once (a
	// transaction that lost a deadlock runs again).
	CreateToken(ctx context.Context, t Token, decide func(others []Token) []string) ([]string, error)
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
}

// Outbox is the database queue of mail that PutCode fills and the Sender
// empties. A mail lives there from the request that queued it until it is
// sent or dropped, so that no request waits for the relay. A claim is a
// lease taken by one conditional update, so several processes send each
// mail once. Lost claims and vanished mails are no errors: another process
// has it, or it was replaced.
type Outbox interface {
	// DueMail lists up to limit mails due at now (their next attempt
	// reached, NotAfter not reached, no live claim), soonest due first.
	DueMail(ctx context.Context, now time.Time, limit int) ([]OutboxMail, error)
	// ClaimMail takes the mail until until under claim (never empty: an
	// empty claim holds nothing), if it is still due and unclaimed at now;
	// false when it is not (another process took it, or it was sent,
	// replaced or dropped meanwhile).
	ClaimMail(ctx context.Context, id, claim string, now, until time.Time) (bool, error)
	// RetryMail gives a claimed mail back with its attempts counted, due
	// again at next; nothing when the claim was lost.
	RetryMail(ctx context.Context, id, claim string, attempts int, next time.Time) error
	// ForgetMail deletes the mail this claim holds (sent, or given up);
	// nothing when the claim was lost.
	ForgetMail(ctx context.Context, id, claim string) error
	// DropExpiredMail deletes up to limit mails whose NotAfter is not after
	// now and that no live claim holds, and returns them without their text.
	DropExpiredMail(ctx context.Context, now time.Time, limit int) ([]OutboxMail, error)
	// PendingMail counts the mails neither sent nor dropped yet (the
	// memory mailbox waits on it, so a test reads what a request queued).
	PendingMail(ctx context.Context) (int, error)
}

// MailLog hears what became of queued mail (bootstrap logs and counts it).
// It never gets a mail's text or recipient: the text holds the code.
type MailLog interface {
	MailSent(ctx context.Context, m OutboxMail)
	// MailFailed: the send failed; it is tried again at next (zero: never,
	// MailDropped follows).
	MailFailed(ctx context.Context, m OutboxMail, err error, next time.Time)
	// MailDropped: never sent, for reason (its code expired first, or the
	// mailer refused it for good).
	MailDropped(ctx context.Context, m OutboxMail, reason string)
}

// Mail is one plain-text message.
type Mail struct {
	To      string
	Subject string
	Text    string
}

// Mailer delivers mail. Only the Sender calls it, never a request. It
// returns core.KindUnavailable when the relay cannot be reached or refuses
// the message (tried again later) and core.KindInvalid for a message it can
// never send (dropped); it must give up within its own timeouts.
type Mailer interface {
	Send(ctx context.Context, m Mail) error
}

// PasswordHasher hashes passwords (argon2id in production).
type PasswordHasher interface {
	Hash(password string) (string, error)
	// Verify reports whether password matches hash; an unparsable hash is an error.
	Verify(hash, password string) (bool, error)
	// Decoy is a hash no password matches that costs a Verify what a real
	// one does: checked in place of an unknown e-mail's, so the answer's
	// timing tells nothing. Made without hashing (it was the largest share
	// of tandem serve's start-up).
	Decoy() (string, error)
}

// Notifier tells a user something in a notification (bootstrap's
// Notifier; failures are its to log).
type Notifier interface {
	Notify(ctx context.Context, userID, category string, text core.Message) error
}

// Reporter hears of what failed after a commit (bootstrap logs it): the
// answer stands, and an operator should know (a notice mail not queued).
type Reporter interface {
	AfterCommitFailed(ctx context.Context, what string, err error)
}

// SessionCache is a short-lived read cache of resolved tokens, in front of
// Repository.Session. Entries live at most a few seconds so that a token
// revoked by another process dies quickly; this process forgets at once.
type SessionCache interface {
	Get(tokenHash string) (Session, bool)
	Put(tokenHash string, s Session)
	Forget(tokenHashes ...string)
}
