package accounts

import (
	"context"

	"tandem/core"
)

// What administrators do to an account from the console, besides the
// grant (admin.go): list, block and unblock, end every session, vouch for
// the e-mail, start a password reset. The console's audit log records
// each (admin.AuditedAccounts); the rules stay here.

// DecideSession is the rule every way in obeys before it hands out a
// session (a password login, the console's, a provider's sign-in, a
// passkey, a verification or reset that signs in): a blocked account gets
// none, 403 account_blocked. It is asked only once the caller proved who
// they are, so it tells a stranger nothing about the account.
func DecideSession(a Account) error {
	if a.Blocked {
		return errAccountBlocked()
	}
	return nil
}

func errAccountBlocked() error {
	return core.Forbidden("account_blocked", "accounts.accountBlockedContactSupport", "this account is blocked: contact support")
}

// List lists every account newest first, a page of at most MaxSearchPage.
func (s *Service) List(ctx context.Context, page core.Page) ([]Account, string, error) {
	if page.Limit <= 0 || page.Limit > MaxSearchPage {
		page.Limit = MaxSearchPage
	}
	as, next, err := s.repo.List(ctx, page)
	if err != nil {
		return nil, "", err
	}
	if as == nil {
		as = []Account{}
	}
	return as, next, nil
}

// SetBlocked blocks or unblocks the account. A block revokes every
// session in the same write, and the revocation is told to every process
// (the session cache's Forget), whose live streams of those sessions end:
// what "log out everywhere" does to sessions, without taking the linked
// providers and passkeys (an unblock gives the account back whole).
func (s *Service) SetBlocked(ctx context.Context, userID string, blocked bool) error {
	revoked, err := s.repo.SetBlocked(ctx, userID, blocked)
	if core.IsKind(err, core.KindNotFound) {
		return errUserNotFound()
	}
	if err != nil {
		return err
	}
	s.cache.Forget(revoked...)
	return nil
}

// EndSessions revokes every session of the user, told to every process
// as SetBlocked's are; the ways in (password, providers, passkeys) stay.
func (s *Service) EndSessions(ctx context.Context, userID string) error {
	if _, err := s.account(ctx, userID); err != nil {
		return err
	}
	revoked, err := s.repo.DeleteTokens(ctx, userID)
	if err != nil {
		return err
	}
	s.cache.Forget(revoked...)
	return nil
}

// MarkVerified verifies the account's e-mail without a code: an
// administrator vouches for the address. It is a first proof like
// VerifyEmail's: every earlier way in ends (the owner is mailed what went),
// and an administrator's pending password is dropped. 409
// already_verified when the e-mail is proven already.
func (s *Service) MarkVerified(ctx context.Context, userID string) error {
	a, err := s.account(ctx, userID)
	if err != nil {
		return err
	}
	if a.Verified {
		return core.Conflict("already_verified", "accounts.mailAlreadyVerified", "the e-mail is already verified")
	}
	if a.PasswordHash != "" && s.adminAddress(a) {
		if err := s.repo.ClearPendingPassword(ctx, userID); err != nil {
			return err
		}
	}
	removed, err := s.repo.MarkVerified(ctx, userID)
	if core.IsKind(err, core.KindNotFound) {
		return errUserNotFound()
	}
	if err != nil {
		return err
	}
	s.logFailure(ctx, "after a verification by an administrator", s.afterEnding(ctx, a, removed, EndVerified, true))
	return nil
}

// consoleClient is the client a reset started from the console is counted
// under: the account's mail budget is shared with its owner's requests.
const consoleClient = "console"

// StartReset mails the account a password reset code, the mail the API's
// reset request sends (RequestReset), counted against the same budget of
// mailed codes per e-mail.
func (s *Service) StartReset(ctx context.Context, userID string) error {
	a, err := s.account(ctx, userID)
	if err != nil {
		return err
	}
	if err := s.hitCodeRequest(ctx, a.Email, consoleClient); err != nil {
		return err
	}
	return s.sendCode(ctx, a, PurposeReset)
}

// IsConfiguredAdmin says whether the account's address is listed in
// TANDEM_ADMIN_EMAILS: a grant the console can neither give nor take.
func (s *Service) IsConfiguredAdmin(a Account) bool { return s.isConfiguredAdmin(a.Email) }
