package admin

import (
	"context"

	"tandem/core"
)

// The console's actions on one user's page, each recorded through Apply
// on "user:ID" with the state before and after. A refusal (one's own
// account, an administrator's) is answered before anything is recorded,
// as Delete's is.

// accountState is what the log keeps of an account around a change.
type accountState struct {
	Email    string `json:"email"`
	Verified bool   `json:"verified"`
	Blocked  bool   `json:"blocked"`
	Admin    bool   `json:"admin"` // the stored grant
}

func stateOf(a Account) accountState {
	return accountState{Email: a.Email, Verified: a.Verified, Blocked: a.Blocked, Admin: a.Granted}
}

// Block blocks the account, as "account.block": its sessions end on every
// process and no way in signs it in until Unblock. One's own account and
// an administrator's are refused (remove the grant first).
func (a *AuditedAccounts) Block(ctx context.Context, userID string) (Account, error) {
	acc, err := a.accounts.Account(ctx, userID)
	if err != nil {
		return Account{}, err
	}
	if isSelf(ctx, userID) {
		return Account{}, core.Forbidden("forbidden", "admin.cannotBlockOwnAccount", "you cannot block your own account")
	}
	if acc.Admin || acc.Granted || acc.Configured {
		return Account{}, core.Forbidden("forbidden", "admin.administratorAccountNotBlockedConsole", "an administrator's account is not blocked from the console: remove the grant first")
	}
	return acc, a.change(ctx, "account.block", acc, func(ctx context.Context, after *accountState) error {
		after.Blocked = true
		return a.accounts.SetBlocked(ctx, userID, true)
	})
}

// Unblock lifts a block, as "account.unblock".
func (a *AuditedAccounts) Unblock(ctx context.Context, userID string) (Account, error) {
	acc, err := a.accounts.Account(ctx, userID)
	if err != nil {
		return Account{}, err
	}
	return acc, a.change(ctx, "account.unblock", acc, func(ctx context.Context, after *accountState) error {
		after.Blocked = false
		return a.accounts.SetBlocked(ctx, userID, false)
	})
}

// EndSessions ends every session of the user, as "session.revoke_all"
// with how many there were; the ways in stay.
func (a *AuditedAccounts) EndSessions(ctx context.Context, userID string) (Account, error) {
	acc, err := a.accounts.Account(ctx, userID)
	if err != nil {
		return Account{}, err
	}
	ss, err := a.accounts.Sessions(ctx, userID)
	if err != nil {
		return Account{}, err
	}
	before := map[string]any{"email": acc.Email, "sessions": len(ss)}
	return acc, a.log.Apply(ctx, Change{Action: "session.revoke_all", Target: "user:" + userID, Before: before},
		func(ctx context.Context) (any, error) {
			return map[string]any{"sessions": 0}, a.accounts.EndSessions(ctx, userID)
		})
}

// Verify verifies the account's e-mail, as "account.verify": the
// administrator vouches for the address.
func (a *AuditedAccounts) Verify(ctx context.Context, userID string) (Account, error) {
	acc, err := a.accounts.Account(ctx, userID)
	if err != nil {
		return Account{}, err
	}
	return acc, a.change(ctx, "account.verify", acc, func(ctx context.Context, after *accountState) error {
		after.Verified = true
		return a.accounts.MarkVerified(ctx, userID)
	})
}

// StartReset mails the user a password reset code, as
// "password.reset_start" (the code is never recorded).
func (a *AuditedAccounts) StartReset(ctx context.Context, userID string) (Account, error) {
	acc, err := a.accounts.Account(ctx, userID)
	if err != nil {
		return Account{}, err
	}
	return acc, a.log.Apply(ctx, Change{Action: "password.reset_start", Target: "user:" + userID},
		func(ctx context.Context) (any, error) {
			return map[string]string{"mailedTo": acc.Email}, a.accounts.StartReset(ctx, userID)
		})
}

// Grant gives the account the administrator role (SetAdmin: "admin.grant").
func (a *AuditedAccounts) Grant(ctx context.Context, userID string) (Account, error) {
	acc, err := a.accounts.Account(ctx, userID)
	if err != nil {
		return Account{}, err
	}
	return acc, a.SetAdmin(ctx, acc.Email, true)
}

// Revoke removes the stored grant (SetAdmin: "admin.revoke"). One's own is
// refused (another administrator revokes it), and so is an address listed
// in TANDEM_ADMIN_EMAILS: the configuration gives that role, and only it
// can take it.
func (a *AuditedAccounts) Revoke(ctx context.Context, userID string) (Account, error) {
	acc, err := a.accounts.Account(ctx, userID)
	if err != nil {
		return Account{}, err
	}
	if isSelf(ctx, userID) {
		return Account{}, core.Forbidden("forbidden", "admin.cannotRevokeOwnAdministratorGrant", "you cannot revoke your own administrator grant: another administrator can")
	}
	if acc.Configured {
		return Account{}, core.Forbidden("forbidden",
			"admin.administratorTANDEMADMINEMAILSRemove", "%s is an administrator by TANDEM_ADMIN_EMAILS: remove the address from that setting, the console cannot revoke it", acc.Email)
	}
	return acc, a.SetAdmin(ctx, acc.Email, false)
}

// change applies a change of the account's state, recorded with its
// state before and the state apply leaves.
func (a *AuditedAccounts) change(ctx context.Context, action string, acc Account, apply func(ctx context.Context, after *accountState) error) error {
	before := stateOf(acc)
	return a.log.Apply(ctx, Change{Action: action, Target: "user:" + acc.ID, Before: before}, func(ctx context.Context) (any, error) {
		after := before
		if err := apply(ctx, &after); err != nil {
			return nil, err
		}
		return after, nil
	})
}

// isSelf says whether userID is the acting administrator.
func isSelf(ctx context.Context, userID string) bool {
	p, ok := core.PrincipalFrom(ctx)
	return ok && p.UserID != "" && p.UserID == userID
}
