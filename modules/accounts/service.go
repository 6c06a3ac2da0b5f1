package accounts

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"tandem/core"
)

// Admins is the configured list of administrator e-mails (TANDEM_ADMIN_EMAILS).
type Admins []string

// Service holds every account rule of the API (docs/api.md), one use
// case a file: sign-up (signup.go), sessions (session.go), the password
// reset and change (reset.go), the profile, export and deletion
// (profile.go), administrators (admin.go); the code rules they share are in
// codes.go (decisions) and tries.go (counting and mailing).
type Service struct {
	repo    Repository
	sender  *Sender
	hasher  PasswordHasher
	cache   SessionCache
	limiter core.Limiter
	bus     core.Publisher
	clock   core.Clock
	ids     core.IDs
	admins  Admins
	owners  []core.UserData
	// passkeys counts a user's passkeys (UsePasskeys); nil: none.
	passkeys Passkeys
	// notifier tells the owner of a new way in (UseNotifier); nil: mail only.
	notifier Notifier
	// idTokens verifies sign-in ID tokens; nil when no provider is configured.
	idTokens IDTokenVerifier
	texts    core.Translator // the mails' language
	report   Reporter
	dummy    string // a real hash, verified on unknown e-mails so timing reveals nothing

	// grants redeems Apple's authorization codes, sealed at rest by sealer;
	// nil when Apple's team key is not configured (codes are ignored).
	grants  ProviderGrants
	sealer  Sealer
	revoker *Revoker // woken after a commit that may queue a revocation; nil: its periodic pass
}

// Deps groups the Service's collaborators (the list is long; names beat order).
type Deps struct {
	Repo Repository
	// Sender is woken after each mail is queued; nil leaves the mail to
	// the Sender's periodic pass.
	Sender  *Sender
	Hasher  PasswordHasher
	Cache   SessionCache
	Limiter core.Limiter
	Bus     core.Publisher
	Clock   core.Clock
	IDs     core.IDs
	Admins  Admins
	// IDTokens verifies Apple's and Google's ID tokens (nil: sign-in with
	// them answers 401 invalid_token).
	IDTokens IDTokenVerifier
	// Texts writes the mails in the account's language.
	Texts core.Translator
	// Report hears of what failed after a commit (nil: nobody).
	Report Reporter
	// Grants and Sealer redeem Apple's authorization codes and seal their
	// grants (grants.go); both or neither (codes are then ignored). Revoker
	// is woken after each commit that may queue a revocation.
	Grants  ProviderGrants
	Sealer  Sealer
	Revoker *Revoker
}

func NewService(d Deps) (*Service, error) {
	if d.Texts == nil {
		return nil, fmt.Errorf("accounts: no Translator for the mails")
	}
	dummy, err := d.Hasher.Decoy()
	if err != nil {
		return nil, fmt.Errorf("accounts: hasher: %w", err)
	}
	if d.Grants != nil && d.Sealer == nil {
		return nil, fmt.Errorf("accounts: provider grants without a Sealer")
	}
	admins := make(Admins, len(d.Admins))
	for i, a := range d.Admins {
		admins[i] = FoldEmail(a)
	}
	return &Service{repo: d.Repo, sender: d.Sender, hasher: d.Hasher, cache: d.Cache, limiter: d.Limiter,
		bus: d.Bus, clock: d.Clock, ids: d.IDs, admins: admins, dummy: dummy, idTokens: d.IDTokens,
		texts: d.Texts, report: d.Report, grants: d.Grants, sealer: d.Sealer, revoker: d.Revoker}, nil
}

// UseNotifier tells the service how to notify a user (bootstrap calls it
// once, before serving: the notifications module itself asks accounts).
func (s *Service) UseNotifier(n Notifier) { s.notifier = n }

// AddDataOwners registers the modules whose user data deletion purges and
// export gathers (bootstrap calls it once, before serving).
//
// The owners that end what the user shares (core.EndsSharing: the
// partnership) purge first: the records the others purge are still there
// for them to tell the ex-partner they are gone (the feed's deletes).
func (s *Service) AddDataOwners(owners ...core.UserData) {
	s.owners = append(s.owners, owners...)
	slices.SortStableFunc(s.owners, func(a, b core.UserData) int {
		_, endsA := a.(core.EndsSharing)
		_, endsB := b.(core.EndsSharing)
		switch {
		case endsA && !endsB:
			return -1
		case endsB && !endsA:
			return 1
		}
		return 0
	})
}

// hash and verifyPassword pass the hasher's own refusals through (503 busy
// when every hashing slot stays taken); anything else is internal.
func (s *Service) hash(password string) (string, error) {
	h, err := s.hasher.Hash(password)
	if err != nil {
		return "", hasherErr(err)
	}
	return h, nil
}

func (s *Service) verifyPassword(hash, password string) (bool, error) {
	ok, err := s.hasher.Verify(hash, password)
	if err != nil {
		return false, hasherErr(err)
	}
	return ok, nil
}

// logFailure reports err, when there is one, of what ran after a commit.
func (s *Service) logFailure(ctx context.Context, what string, err error) {
	if err != nil && s.report != nil {
		s.report.AfterCommitFailed(ctx, what, err)
	}
}

func hasherErr(err error) error {
	var e *core.Error
	if errors.As(err, &e) {
		return e
	}
	return core.Internal(err)
}

func errEmailTaken() error {
	return core.Conflict("email_already_registered", "accounts.mailAlreadyRegistered", "this e-mail is already registered")
}
func errInvalidCode() error {
	return core.Invalid("invalid_code", "accounts.invalidExpiredCode", "invalid or expired code")
}
func errResetNotProven() error {
	return core.Invalid("invalid_code", "accounts.verifyResetCode", "verify a reset code first")
}
func errUserNotFound() error {
	return core.NotFound("user_not_found", "accounts.userNotFound", "user not found")
}
func errUnauthorized() error {
	return core.Unauthorized("unauthorized", "accounts.missingInvalidExpiredToken", "missing, invalid or expired token")
}
