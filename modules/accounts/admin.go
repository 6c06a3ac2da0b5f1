package accounts

import (
	"context"
	"slices"
	"strings"

	"tandem/core"
)

// IsAdmin says whether the account is an administrator: granted in the
// store or listed in TANDEM_ADMIN_EMAILS, and its e-mail proven (a grant
// or a listed address is never a stranger's way to the rights).
func (s *Service) IsAdmin(a Account) bool { return a.Verified && s.adminAddress(a) }

// adminAddress says whether the account's address is granted or listed,
// proven or not.
func (s *Service) adminAddress(a Account) bool { return a.Admin || s.isConfiguredAdmin(a.Email) }

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

// MaxSearchPage is the most accounts a page of Search holds.
const MaxSearchPage = 100

// Search finds accounts for the console. A query that is an account's id
// finds that account; any other is the start of an e-mail, folded as
// FoldEmail folds, and lists the accounts whose e-mail starts with it in
// e-mail order, a page of at most MaxSearchPage at a time (every character
// matches itself: "%" and "_" are no wildcards). 400 when the query is
// empty, longer than an e-mail can be, or holds control characters.
func (s *Service) Search(ctx context.Context, query string, page core.Page) ([]Account, string, error) {
	q := strings.TrimSpace(query)
	if q == "" {
		return nil, "", core.Required("q")
	}
	if len(q) > 4*MaxEmail { // before folding: bound the work
		return nil, "", errSearchTooLong()
	}
	if err := core.CheckText("q", q, false); err != nil {
		return nil, "", err
	}
	prefix := FoldEmail(q)
	if len(prefix) > MaxEmail {
		return nil, "", errSearchTooLong()
	}
	if page.Limit <= 0 || page.Limit > MaxSearchPage {
		page.Limit = MaxSearchPage
	}
	if page.Cursor != "" {
		if _, err := ParseSearchCursor(page.Cursor); err != nil {
			return nil, "", err
		}
	} else if a, err := s.repo.Get(ctx, q); err == nil {
		return []Account{a}, "", nil
	} else if !core.IsKind(err, core.KindNotFound) {
		return nil, "", err
	}
	as, next, err := s.repo.Search(ctx, prefix, page)
	if err != nil {
		return nil, "", err
	}
	if as == nil {
		as = []Account{}
	}
	return as, next, nil
}

func errSearchTooLong() error {
	return core.Invalid("invalid_request", "accounts.qMostBytesMail", "q must be at most {1|%[1]d byte|%[1]d bytes}, as an e-mail is", MaxEmail)
}

// Emails maps the ids of a page's users to their e-mails, in one read:
// the console names people by e-mail. An id with no account (deleted
// meanwhile) or an empty one is left out; more than core.MaxPageLimit ids
// is a 400.
func (s *Service) Emails(ctx context.Context, ids []string) (map[string]string, error) {
	seen, want := map[string]bool{"": true}, make([]string, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			want = append(want, id)
		}
	}
	if len(want) > core.MaxPageLimit {
		return nil, core.Invalid("invalid_request", "accounts.tooManyUsersOnce", "too many users at once")
	}
	out := make(map[string]string, len(want))
	if len(want) == 0 {
		return out, nil
	}
	as, err := s.repo.GetMany(ctx, want)
	if err != nil {
		return nil, err
	}
	for _, a := range as {
		out[a.ID] = a.Email
	}
	return out, nil
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
