package admin

import (
	"context"
	"time"

	"tandem/core"
)

// AuditLog stores the console's audit entries. Every method is one statement.
type AuditLog interface {
	// Append stores e; core.KindConflict when the id is taken.
	Append(ctx context.Context, e Entry) error
	// Complete sets the entry's outcome and after-state; core.KindNotFound
	// when there is no such entry.
	Complete(ctx context.Context, id string, outcome Outcome, after string) error
	// List lists entries newest first (by At, then id), page.Size() after
	// page.Cursor, and the next cursor when page.Paged() and more follow; a
	// cursor it did not hand out is core.KindInvalid.
	List(ctx context.Context, page core.Page) ([]Entry, string, error)
}

// Stats counts for the overview, each from an index.
type Stats interface {
	// Overview counts users, couples, direct subscriptions granting premium
	// at now, and images created at or after since.
	Overview(ctx context.Context, now, since time.Time) (Overview, error)
}

// FlagWrites is the flags module as administrators change it
// (flags.Service, bound in bootstrap): F is a flag, D a new flag and P a
// change to one. Get, Toggle, Update and Delete return core.KindNotFound
// for an unknown key and core.KindInvalid for a malformed one.
type FlagWrites[F, D, P any] interface {
	Get(ctx context.Context, key string) (F, error)
	Create(ctx context.Context, d D) (F, error)
	Toggle(ctx context.Context, key string, on *bool) (F, error)
	Update(ctx context.Context, key string, p P) (F, error)
	Delete(ctx context.Context, key string) error
}

// PolicyWrites is the versions module's update policies (versions.Service,
// bound in bootstrap): P is a policy, D a new one. Policy returns
// core.KindNotFound when the platform has none yet and core.KindInvalid for
// an unknown platform.
type PolicyWrites[P, D any] interface {
	Policy(ctx context.Context, platform string) (P, error)
	SetPolicy(ctx context.Context, platform string, d D) (P, error)
}

// FeedbackWrites is the feedback module's messages (feedback.Service, bound
// in bootstrap): F is a message. Get returns core.KindNotFound for an
// unknown id.
type FeedbackWrites[F any] interface {
	Get(ctx context.Context, id string) (F, error)
	MarkHandled(ctx context.Context, id, by string) (F, error)
}

// Accounts is the accounts module as administrators change it
// (accounts.Service, bound in bootstrap/audit.go).
type Accounts interface {
	// Account is the account userID: core.KindNotFound when there is none.
	Account(ctx context.Context, userID string) (Account, error)
	// AccountByEmail finds an account by e-mail: core.KindNotFound when
	// there is none, core.KindInvalid for a malformed address.
	AccountByEmail(ctx context.Context, email string) (Account, error)
	// Sessions are the user's live sessions.
	Sessions(ctx context.Context, userID string) ([]Session, error)
	DeleteSession(ctx context.Context, userID, sessionID string) error
	// Delete deletes the account and every module's data of it.
	Delete(ctx context.Context, userID string) error
	// SetAdmin stores or removes the grant of the account with that e-mail:
	// core.KindNotFound when there is none.
	SetAdmin(ctx context.Context, email string, admin bool) error
	// Logout ends the one session of token.
	Logout(ctx context.Context, userID, token string) error
	// SetBlocked blocks (every session ended, no sign-in) or unblocks the
	// account: core.KindNotFound when there is none.
	SetBlocked(ctx context.Context, userID string, blocked bool) error
	// EndSessions ends every session of the user.
	EndSessions(ctx context.Context, userID string) error
	// MarkVerified verifies the account's e-mail without a code:
	// core.KindConflict when it is verified already.
	MarkVerified(ctx context.Context, userID string) error
	// StartReset mails the account a password reset code, as the API's
	// reset request does.
	StartReset(ctx context.Context, userID string) error
}
