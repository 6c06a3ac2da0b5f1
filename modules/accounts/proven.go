package accounts

import (
	"context"

	"tandem/core"
)

// StartSession signs in a user who proved who they are by other means than
// a password (a passkey, through the passkeys module): a new token, as a
// login's. The account must exist (404 user_not_found) and be verified
// (403 email_not_verified, as a login) and not blocked (403
// account_blocked, DecideSession).
func (s *Service) StartSession(ctx context.Context, userID string, cl Client) (string, error) {
	a, err := s.account(ctx, userID)
	if err != nil {
		return "", err
	}
	if !a.Verified {
		return "", core.Forbidden("email_not_verified", "accounts.verifyMailBeforeLogging", "verify your e-mail before logging in")
	}
	if err := DecideSession(a); err != nil {
		return "", err
	}
	return s.newSession(ctx, a.ID, cl)
}
