package admin

import (
	"context"
	"strings"

	"tandem/core"
)

// AuditedAccounts makes administrators' changes to accounts, each through
// Apply: grants from the command line; revoked sessions, deleted accounts
// and the console's own sign-ins and sign-outs.
type AuditedAccounts struct {
	log      *Service
	accounts Accounts
}

// NewAuditedAccounts is a plain constructor, usable without fx.
func NewAuditedAccounts(log *Service, accounts Accounts) *AuditedAccounts {
	return &AuditedAccounts{log: log, accounts: accounts}
}

// SetAdmin grants (or revokes) the administrator role as "admin.grant" (or
// "admin.revoke") on "user:ID", with the stored grant before and after: the
// grant is the most powerful change there is. An account that cannot be
// found is recorded as a failed attempt on "email:" and the e-mail given.
func (a *AuditedAccounts) SetAdmin(ctx context.Context, email string, grant bool) error {
	c := Change{Action: "admin.revoke", Target: "email:" + strings.ToLower(strings.TrimSpace(email))}
	if grant {
		c.Action = "admin.grant"
	}
	acc, err := a.accounts.AccountByEmail(ctx, email)
	switch {
	case err == nil:
		c.Target = "user:" + acc.ID
		c.Before = map[string]any{"email": acc.Email, "admin": acc.Granted}
	case !core.IsKind(err, core.KindNotFound) && !core.IsKind(err, core.KindInvalid):
		return err
	}
	return a.log.Apply(ctx, c, func(ctx context.Context) (any, error) {
		if err := a.accounts.SetAdmin(ctx, email, grant); err != nil {
			return nil, err
		}
		return map[string]any{"email": acc.Email, "admin": grant}, nil
	})
}

// sessionRecord is a revoked session as the log keeps it (never the token).
type sessionRecord struct {
	ID        string `json:"id"`
	UserID    string `json:"userId"`
	UserAgent string `json:"userAgent"`
	CreatedAt int64  `json:"createdAt"`
}

// RevokeSession ends one of the user's sessions, as "session.revoke" on
// "user:ID" with the session before. It returns the account.
func (a *AuditedAccounts) RevokeSession(ctx context.Context, userID, sessionID string) (Account, error) {
	acc, err := a.accounts.Account(ctx, userID)
	if err != nil {
		return Account{}, err
	}
	ss, err := a.accounts.Sessions(ctx, userID)
	if err != nil {
		return Account{}, err
	}
	before := sessionRecord{ID: sessionID, UserID: userID}
	for _, s := range ss {
		if s.ID == sessionID {
			before = sessionRecord{ID: s.ID, UserID: userID, UserAgent: s.UserAgent, CreatedAt: core.Millis(s.CreatedAt)}
		}
	}
	err = a.log.Apply(ctx, Change{Action: "session.revoke", Target: "user:" + userID, Before: before},
		func(ctx context.Context) (any, error) { return nil, a.accounts.DeleteSession(ctx, userID, sessionID) })
	return acc, err
}

// Delete deletes the account and all its data, as "account.delete" on
// "user:ID", once confirm (typed again by the administrator) is its e-mail.
// It returns the account. One administrator must not end another's account
// (or their own): an administrator's is refused until the grant is removed,
// which the log then shows.
func (a *AuditedAccounts) Delete(ctx context.Context, userID, confirm string) (Account, error) {
	acc, err := a.accounts.Account(ctx, userID)
	if err != nil {
		return Account{}, err
	}
	if acc.Admin {
		return Account{}, core.Forbidden("forbidden", "admin.administratorAccountNotDeletedConsole", "an administrator's account is not deleted from the console: remove the grant first")
	}
	if !strings.EqualFold(strings.TrimSpace(confirm), acc.Email) {
		return Account{}, core.Invalid("invalid_request", "admin.typeAccountMailConfirmDeletion", "type the account's e-mail to confirm the deletion")
	}
	before := map[string]any{"id": acc.ID, "email": acc.Email, "verified": acc.Verified, "createdAt": core.Millis(acc.CreatedAt)}
	err = a.log.Apply(ctx, Change{Action: "account.delete", Target: "user:" + userID, Before: before},
		func(ctx context.Context) (any, error) { return nil, a.accounts.Delete(ctx, userID) })
	return acc, err
}

// SignedIn records p's new console session as "console.signin", with the
// client's address and user agent. A session whose entry cannot be stored
// is ended at once and the error returned: no session without its entry.
func (a *AuditedAccounts) SignedIn(ctx context.Context, p core.Principal, token, ip, userAgent string) error {
	ctx = core.WithPrincipal(ctx, p)
	err := a.log.Apply(ctx, Change{Action: "console.signin", Target: "user:" + p.UserID}, func(context.Context) (any, error) {
		return map[string]string{"ip": ip, "userAgent": userAgent}, nil
	})
	if err != nil {
		_ = a.accounts.Logout(context.WithoutCancel(ctx), p.UserID, token)
	}
	return err
}

// SignOut ends the acting administrator's console session token, as
// "console.signout".
func (a *AuditedAccounts) SignOut(ctx context.Context, token string) error {
	p, _ := core.PrincipalFrom(ctx)
	return a.log.Apply(ctx, Change{Action: "console.signout", Target: "user:" + p.UserID},
		func(ctx context.Context) (any, error) { return nil, a.accounts.Logout(ctx, p.UserID, token) })
}
