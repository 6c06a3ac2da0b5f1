package accounts

import (
	"context"
	"slices"

	"tandem/core"
)

// IsAdmin says whether the account is an administrator: granted in the
// store or listed in TANDEM_ADMIN_EMAILS.
func (s *Service) IsAdmin(a Account) bool { return a.Admin || s.isConfiguredAdmin(a.Email) }

// FindByEmail returns the account with that e-mail (the console's user
// lookup); 404 user_not_found when there is none.
func (s *Service) FindByEmail(ctx context.Context, email string) (Account, error) {
	email, err := NormalizeEmail(email)
	if err != nil {
		return Account{}, err
	}
	a, err := s.repo.GetByEmail(ctx, email)
	if core.IsKind(err, core.KindNotFound) {
		return Account{}, errUserNotFound()
	}
	return a, err
}

// SetAdmin grants or revokes the stored administrator flag (tandem admin).
func (s *Service) SetAdmin(ctx context.Context, email string, admin bool) error {
	email, err := NormalizeEmail(email)
	if err != nil {
		return err
	}
	if err := s.repo.SetAdmin(ctx, email, admin); err != nil {
		if core.IsKind(err, core.KindNotFound) {
			return errUserNotFound()
		}
		return err
	}
	return s.forgetSessions(ctx, email)
}

// forgetSessions drops the cached sessions of the account, on every
// process: they carry the administrator flag, and a revoked grant must end
// console access at once, not when the cache entry expires.
func (s *Service) forgetSessions(ctx context.Context, email string) error {
	a, err := s.repo.GetByEmail(ctx, email)
	if err != nil {
		return err
	}
	ts, err := s.repo.Tokens(ctx, a.ID)
	if err != nil {
		return err
	}
	hashes := make([]string, len(ts))
	for i, t := range ts {
		hashes[i] = t.Hash
	}
	s.cache.Forget(hashes...)
	return nil
}

func (s *Service) isConfiguredAdmin(email string) bool { return slices.Contains(s.admins, email) }
