package accounts

import (
	"context"
	"strings"
	"time"

	"tandem/core"
)

// RequestReset mails a reset code to an existing account.
func (s *Service) RequestReset(ctx context.Context, email string, cl Client) (string, error) {
	email, err := NormalizeEmail(email)
	if err != nil {
		return "", err
	}
	a, err := s.repo.GetByEmail(ctx, email)
	if core.IsKind(err, core.KindNotFound) {
		return "", errUserNotFound()
	}
	if err != nil {
		return "", err
	}
	if err := s.hitCodeRequest(ctx, email, cl.IP); err != nil {
		return "", err
	}
	return a.ID, s.sendCode(ctx, a, PurposeReset)
}

// VerifyReset proves the reset code and returns a reset token: the proof the
// password update step may carry instead of the code (single use, 10
// minutes, stored hashed).
func (s *Service) VerifyReset(ctx context.Context, userID, code string, cl Client) (string, error) {
	if _, err := s.account(ctx, userID); err != nil {
		return "", err
	}
	c, err := s.checkCode(ctx, userID, PurposeReset, code, cl.IP)
	if err != nil {
		return "", err
	}
	plain, hash := newToken()
	now := s.clock.Now()
	if _, err := s.repo.UpdateCode(ctx, userID, PurposeReset, ProveReset(c.Hash, hash, now, now.Add(ResetProofTTL))); err != nil {
		return "", codeGone(err)
	}
	return plain, nil
}

// UpdatePassword sets the new password. It needs proof that the caller holds
// the mailbox: the verified reset code again, or the reset token of the
// verify step; a userId alone is 400 invalid_code. A proof ends every
// earlier way in (sessions, providers, passkeys; the owner is mailed what
// went) and returns a new token; a never-verified e-mail becomes verified.
func (s *Service) UpdatePassword(ctx context.Context, userID, password string, proof ResetProof, cl Client) (string, error) {
	if err := ValidatePassword("newPassword", password); err != nil {
		return "", err
	}
	a, err := s.account(ctx, userID)
	if err != nil {
		return "", err
	}
	if err := DecideSession(a); err != nil { // the reset signs in: a blocked account's does not
		return "", err
	}
	c, err := s.checkResetProof(ctx, userID, proof, cl.IP)
	if err != nil {
		return "", err
	}
	hash, err := s.hash(password)
	if err != nil {
		return "", err
	}
	plain, t := s.token(userID, cl)
	removed, err := s.spendReset(ctx, userID, SpendReset(c.Hash, hash, s.clock.Now(), t), hash)
	if err != nil {
		return "", codeGone(err)
	}
	s.logFailure(ctx, "after reset", s.afterEnding(ctx, a, removed, EndReset, !a.Verified))
	return plain, nil
}

// ChangePassword sets the signed-in user's password. It needs the current
// password; an account without one (a provider's, a disputed sign-up)
// sets its first only from a token made by a sign-in within
// core.ReauthWindow (signedInAt), and the owner is told of the new way in:
// a stolen token alone cannot take the account. A wrong current password
// is counted like a failed login. Every token is revoked and a new one
// returned.
func (s *Service) ChangePassword(ctx context.Context, userID string, signedInAt time.Time, current, password string, cl Client) (string, error) {
	if err := ValidatePassword("newPassword", password); err != nil {
		return "", err
	}
	a, err := s.account(ctx, userID)
	if err != nil {
		return "", err
	}
	first := a.PasswordHash == ""
	if first {
		if err := core.RequireRecentSignIn(signedInAt, s.clock.Now()); err != nil {
			return "", err
		}
	}
	if err := s.checkCurrentPassword(ctx, a, current, cl); err != nil {
		return "", err
	}
	hash, err := s.hash(password)
	if err != nil {
		return "", err
	}
	plain, t := s.token(userID, cl)
	revoked, err := s.setPassword(ctx, a, hash, t)
	if err != nil {
		return "", err
	}
	s.cache.Forget(revoked...)
	if first {
		s.logFailure(ctx, "after a first password", s.WayInAdded(ctx, userID, MethodPassword))
	}
	return plain, nil
}

func (s *Service) checkCurrentPassword(ctx context.Context, a Account, current string, cl Client) error {
	if a.PasswordHash == "" {
		return nil
	}
	if current == "" {
		return core.Required("currentPassword")
	}
	if err := s.reserveLogin(ctx, apiLogins, a.Email, cl.IP); err != nil {
		return err
	}
	ok, err := s.verifyPassword(a.PasswordHash, current)
	if err != nil {
		return err
	}
	if !ok {
		return core.Forbidden("invalid_credentials", "accounts.currentPasswordWrong", "the current password is wrong")
	}
	return s.releaseLogin(ctx, apiLogins, a.Email, cl.IP)
}

// checkResetProof finds the proven reset code and checks the presented proof
// in constant time; every proof takes one of the code's tries first, and the
// right one is spent with the code.
func (s *Service) checkResetProof(ctx context.Context, userID string, proof ResetProof, clientIP string) (Code, error) {
	code, token := strings.TrimSpace(proof.Code), strings.TrimSpace(proof.ResetToken)
	if code == "" && token == "" {
		return Code{}, core.Invalid("invalid_code", "accounts.sendVerifiedCodeResetTokenNew", "send the verified code or the resetToken with the new password")
	}
	c, err := s.takeTry(ctx, userID, PurposeReset, clientIP)
	if core.IsKind(err, core.KindNotFound) || (err == nil && c.VerifiedAt.IsZero()) {
		return Code{}, errResetNotProven()
	}
	if err != nil {
		return Code{}, err
	}
	now := s.clock.Now()
	if c.Attempts > CodeMaxAttempts {
		return Code{}, errTooManyTries(c, now)
	}
	ok := false
	if token != "" {
		ok = secretMatches(c.ProofHash, token) && now.Before(c.ProofExpiresAt)
	} else {
		ok = codeMatches(c, code) && now.Before(c.ExpiresAt)
	}
	if !ok {
		return Code{}, errInvalidCode()
	}
	return c, s.giveTryBack(ctx, c, clientIP)
}
