package accounts

import (
	"context"

	"tandem/core"
)

// AdminSetup is what SetUpAdmin did to the account of an address, for the
// operator who ran `tandem admin create` (a re-run says it changed nothing).
type AdminSetup struct {
	UserID string
	// Created: there was no verified account of the address; one was made,
	// verified, with the password.
	Created bool
	// Replaced: an unverified sign-up of the address (whoever typed it,
	// never proven theirs) was deleted, with its data, before Created.
	Replaced bool
	// PasswordSet: a verified account's password was set (it had another,
	// or none); every session it had ended (SessionsEnded of them).
	PasswordSet   bool
	SessionsEnded int
	// Granted is the stored administrator grant as it was found (the
	// caller grants it, through the audit log, when it was not).
	Granted bool
}

// SetUpAdmin makes the address an account with the password, the address
// verified, for `tandem admin create`: the operator vouches for the address
// as its own, which is what the mailed code proves for anyone else. The
// grant is the caller's (audited); this never grants. Run again with the
// same password on a verified account it changes nothing. 400 for a
// malformed address or a password outside MinPassword..MaxPassword.
func (s *Service) SetUpAdmin(ctx context.Context, email, password string) (AdminSetup, error) {
	email, err := NormalizeEmail(email)
	if err != nil {
		return AdminSetup{}, err
	}
	if err := ValidatePassword("password", password); err != nil {
		return AdminSetup{}, err
	}
	var out AdminSetup
	a, err := s.repo.GetByEmail(ctx, email)
	switch {
	case err == nil && !a.Verified:
		// An unproven sign-up may be a stranger's squat on the address (its
		// password is dropped at verification anyway, for an administrator's
		// address): it goes, with whatever it made.
		if err := s.Delete(ctx, a.ID); err != nil {
			return AdminSetup{}, err
		}
		out.Replaced = true
	case err == nil:
		return s.setAdminPassword(ctx, a, password)
	case !core.IsKind(err, core.KindNotFound):
		return AdminSetup{}, err
	}
	hash, err := s.hash(password)
	if err != nil {
		return AdminSetup{}, err
	}
	now := s.clock.Now()
	a = Account{ID: s.ids.New(), Email: email, PasswordHash: hash, Verified: true, CreatedAt: now, UpdatedAt: now}
	if err := s.repo.Create(ctx, a); err != nil {
		if core.IsKind(err, core.KindConflict) {
			return AdminSetup{}, errEmailTaken() // a sign-up won the address meanwhile: run again
		}
		return AdminSetup{}, err
	}
	out.UserID, out.Created = a.ID, true
	return out, nil
}

// setAdminPassword gives a verified account the password, unless it has it
// already: a new password ends every session (as a reset does), and a first
// one is told to the owner as a new way in.
func (s *Service) setAdminPassword(ctx context.Context, a Account, password string) (AdminSetup, error) {
	out := AdminSetup{UserID: a.ID, Granted: a.Admin}
	if a.PasswordHash != "" {
		same, err := s.verifyPassword(a.PasswordHash, password)
		if err != nil || same {
			return out, err
		}
	}
	hash, err := s.hash(password)
	if err != nil {
		return AdminSetup{}, err
	}
	// SetPassword stores a session beside the password, as a reset's; the
	// command line wants none, so it is deleted at once (its token was
	// never shown to anyone: should the delete fail, nobody holds it).
	_, t := s.token(a.ID, Client{UserAgent: "tandem admin create"})
	revoked, err := s.setPassword(ctx, a, hash, t)
	if err != nil {
		return AdminSetup{}, err
	}
	s.cache.Forget(revoked...)
	if err := s.repo.DeleteToken(ctx, t.Hash); err != nil {
		return AdminSetup{}, err
	}
	if a.PasswordHash == "" {
		s.logFailure(ctx, "after a first password", s.WayInAdded(ctx, a.ID, MethodPassword))
	}
	out.PasswordSet, out.SessionsEnded = true, len(revoked)
	return out, nil
}
