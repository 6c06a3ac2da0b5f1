package accounts

import (
	"context"

	"tandem/core"
)

// SignUp creates an unverified account and mails a verification code (queued:
// it never waits for the relay, see sendCode). Signing up again with an
// unverified e-mail sends a new code, which kills the earlier ones. Whoever
// typed an address may not own it, so a pending account whose sign-ups
// disagree on the password keeps none of them: verification then signs the
// owner in with PasswordRequired and the owner sets one. A repeated sign-up
// with the same password keeps it.
func (s *Service) SignUp(ctx context.Context, email, password string, cl Client) (string, error) {
	email, err := NormalizeEmail(email)
	if err != nil {
		return "", err
	}
	existing, err := s.repo.GetByEmail(ctx, email)
	switch {
	case err == nil && existing.Verified:
		return "", errEmailTaken() // before the password: whatever was typed, the e-mail is taken
	case err != nil && !core.IsKind(err, core.KindNotFound):
		return "", err
	}
	if err := ValidatePassword("password", password); err != nil {
		return "", err
	}
	if err := s.hitCodeRequest(ctx, email, cl.IP); err != nil {
		return "", err
	}
	if existing.ID != "" {
		return existing.ID, s.signUpAgain(ctx, existing, password)
	}
	hash, err := s.hash(password)
	if err != nil {
		return "", err
	}
	now := s.clock.Now()
	a := Account{ID: s.ids.New(), Email: email, PasswordHash: hash, Profile: Profile{Locale: cl.Locale}, CreatedAt: now, UpdatedAt: now}
	err = s.repo.Create(ctx, a)
	if core.IsKind(err, core.KindConflict) {
		return "", errEmailTaken() // a concurrent sign-up won the e-mail
	}
	if err != nil {
		return "", err
	}
	return a.ID, s.sendCode(ctx, a, PurposeVerify)
}

// signUpAgain answers a sign-up for a pending account: the pending password
// is kept only when this sign-up typed the same one (see SignUp).
func (s *Service) signUpAgain(ctx context.Context, a Account, password string) error {
	if a.PasswordHash != "" {
		same, err := s.verifyPassword(a.PasswordHash, password)
		if err != nil {
			return err
		}
		if !same {
			if err := s.repo.ClearPendingPassword(ctx, a.ID); err != nil {
				return err
			}
		}
	}
	return s.sendCode(ctx, a, PurposeVerify)
}

// Verification is what a proven sign-up code gives: the first token, and
// whether the account has no password yet (the owner must set one).
type Verification struct {
	Token            string
	PasswordRequired bool
}

// VerifyEmail checks the sign-up code and returns the first token. It is
// the first proof of the mailbox: every earlier way in ends (sessions,
// providers, passkeys: none of them was the owner's), and a partnership
// made before goes (WaysInEnded, Unproven). An administrator's rights
// never attach to a password chosen before the address was proven: an
// administrator's pending password is dropped here.
func (s *Service) VerifyEmail(ctx context.Context, userID, code string, cl Client) (Verification, error) {
	a, err := s.account(ctx, userID)
	if err != nil {
		return Verification{}, err
	}
	if a.Verified {
		return Verification{}, errInvalidCode()
	}
	if err := DecideSession(a); err != nil {
		return Verification{}, err
	}
	c, err := s.checkCode(ctx, userID, PurposeVerify, code, cl.IP)
	if err != nil {
		return Verification{}, err
	}
	if a.PasswordHash != "" && s.adminAddress(a) {
		if err := s.repo.ClearPendingPassword(ctx, userID); err != nil {
			return Verification{}, err
		}
		a.PasswordHash = ""
	}
	plain, t := s.token(userID, cl)
	removed, err := s.repo.UpdateCode(ctx, userID, PurposeVerify, SpendVerification(c.Hash, t))
	if err != nil {
		return Verification{}, codeGone(err)
	}
	s.logFailure(ctx, "after verification", s.afterEnding(ctx, a, removed, EndVerified, true))
	return Verification{Token: plain, PasswordRequired: a.PasswordHash == ""}, nil
}
