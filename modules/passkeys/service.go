package passkeys

import (
	"bytes"
	"context"
	"time"

	"tandem/core"
)

// Service holds every passkey rule.
type Service struct {
	repo     Repository
	accounts Accounts
	cer      Ceremonies // nil: passkeys are off (TANDEM_PASSKEYS unset)
	limiter  core.Limiter
	clock    core.Clock
	ids      core.IDs
	bus      core.Publisher // the feed's changes (core.WriteWithChanges)
}

// NewService is a plain constructor, usable without fx. A nil cer turns
// the ceremonies off: they answer 404 passkeys_disabled, while a user's
// passkeys can still be listed and deleted.
func NewService(repo Repository, accounts Accounts, cer Ceremonies, limiter core.Limiter, clock core.Clock, ids core.IDs,
	bus core.Publisher) *Service {
	return &Service{repo: repo, accounts: accounts, cer: cer, limiter: limiter, clock: clock, ids: ids, bus: bus}
}

// Enabled says whether the ceremonies are configured.
func (s *Service) Enabled() bool { return s.cer != nil }

// RegisterOptions begins a registration for the signed-in user: options
// for navigator.credentials.create that exclude the user's passkeys and
// ask for a discoverable credential, and a challenge stored for
// ChallengeTTL. A passkey is a way in: only a token made by a sign-in
// within core.ReauthWindow (signedInAt) adds one (403
// reauthentication_required).
func (s *Service) RegisterOptions(ctx context.Context, userID string, signedInAt time.Time) ([]byte, error) {
	if s.cer == nil {
		return nil, errDisabled()
	}
	if err := core.RequireRecentSignIn(signedInAt, s.clock.Now()); err != nil {
		return nil, err
	}
	h, err := s.accounts.Holder(ctx, userID)
	if err != nil {
		return nil, err
	}
	existing, err := s.repo.List(ctx, userID)
	if err != nil {
		return nil, err
	}
	if len(existing) >= MaxPasskeys {
		return nil, TooMany()
	}
	o, err := s.cer.BeginRegistration(h, existing)
	if err != nil {
		return nil, core.Internal(err)
	}
	return o.JSON, s.keep(ctx, o, userID, PurposeRegister)
}

// Register finishes a registration: the caller signed in recently (as for
// RegisterOptions), the answer signs a challenge this user was given for
// registering, unused and unexpired (spent by this call whatever follows),
// and verifies; the passkey is stored and the owner told.
func (s *Service) Register(ctx context.Context, userID string, signedInAt time.Time, body []byte) (Passkey, error) {
	if s.cer == nil {
		return Passkey{}, errDisabled()
	}
	if err := core.RequireRecentSignIn(signedInAt, s.clock.Now()); err != nil {
		return Passkey{}, err
	}
	a, err := s.cer.ParseRegistration(body)
	if err != nil {
		return Passkey{}, core.Invalid("invalid_registration", "passkeys.passkeyAnswerCouldNotRead", "the passkey answer could not be read").Wrap(err)
	}
	c, err := s.take(ctx, a, PurposeRegister, userID)
	if err != nil {
		return Passkey{}, err
	}
	h, err := s.accounts.Holder(ctx, userID)
	if err != nil {
		return Passkey{}, err
	}
	existing, err := s.repo.List(ctx, userID)
	if err != nil {
		return Passkey{}, err
	}
	p, err := s.cer.FinishRegistration(h, existing, c.Session, a)
	if err != nil {
		return Passkey{}, core.Invalid("invalid_registration", "passkeys.passkeyCouldNotVerified", "the passkey could not be verified").Wrap(err)
	}
	p.ID, p.UserID, p.CreatedAt, p.LastUsedAt = s.ids.New(), userID, s.clock.Now(), time.Time{}
	var cs []core.Change
	if len(existing) == 0 { // the feed: "passkey" joins the profile's sign-in methods
		if cs, err = s.accounts.FirstPasskeyChanges(ctx, userID); err != nil {
			return Passkey{}, err
		}
	}
	if err := core.WriteWithChanges(ctx, s.bus, cs, func(ctx context.Context) error {
		return s.repo.Create(ctx, p, MaxPasskeys)
	}); err != nil {
		return Passkey{}, err
	}
	return p, s.accounts.PasskeyAdded(ctx, userID)
}

// SignInOptions begins a discoverable sign-in: options for
// navigator.credentials.get with no user named, and a challenge stored for
// ChallengeTTL.
func (s *Service) SignInOptions(ctx context.Context) ([]byte, error) {
	if s.cer == nil {
		return nil, errDisabled()
	}
	o, err := s.cer.BeginSignIn()
	if err != nil {
		return nil, core.Internal(err)
	}
	return o.JSON, s.keep(ctx, o, "", PurposeSignIn)
}

// SignIn finishes a sign-in and starts a session for the passkey's owner:
// it returns the user id and the token. Each attempt is reserved per
// client IP before it is checked (429 rate_limited past the limit) and a
// success gives it back. An answer of the wrong shape is 400
// invalid_request; every other refusal of it (an unknown, used or expired challenge, an unknown passkey, a bad signature,
// a counter that did not move forward) is 401 invalid_credentials.
func (s *Service) SignIn(ctx context.Context, body []byte, cl Client) (string, string, error) {
	if s.cer == nil {
		return "", "", errDisabled()
	}
	a, err := s.cer.ParseSignIn(body) // an answer of the wrong shape is no attempt: nothing was checked
	if err != nil {
		return "", "", core.Invalid("invalid_request", "passkeys.passkeyAnswerCouldNotRead", "the passkey answer could not be read").Wrap(err)
	}
	if err := s.limiter.Hit(ctx, ruleFailedSignIns, cl.IP, "rate_limited"); err != nil {
		return "", "", err
	}
	c, err := s.take(ctx, a, PurposeSignIn, "")
	if err != nil {
		return "", "", err
	}
	key, err := s.repo.ByCredential(ctx, a.CredentialID)
	if core.IsKind(err, core.KindNotFound) {
		return "", "", errCredentials()
	}
	if err != nil {
		return "", "", err
	}
	if !bytes.Equal(a.UserHandle, []byte(key.UserID)) {
		return "", "", errCredentials()
	}
	h, err := s.accounts.Holder(ctx, key.UserID)
	if core.IsKind(err, core.KindNotFound) {
		return "", "", errCredentials()
	}
	if err != nil {
		return "", "", err
	}
	signed, err := s.cer.FinishSignIn(h, key, c.Session, a)
	if err != nil {
		return "", "", core.As(errCredentials()).Wrap(err)
	}
	if _, err := s.repo.RecordUse(ctx, key.ID, Use(signed, s.clock.Now())); err != nil {
		return "", "", err
	}
	if err := s.limiter.Undo(ctx, ruleFailedSignIns, cl.IP); err != nil {
		return "", "", err
	}
	token, err := s.accounts.StartSession(ctx, key.UserID, cl)
	if err != nil {
		return "", "", err
	}
	return key.UserID, token, nil
}

// List returns the user's passkeys, oldest first.
func (s *Service) List(ctx context.Context, userID string) ([]Passkey, error) {
	if _, err := s.accounts.Holder(ctx, userID); err != nil {
		return nil, err
	}
	ps, err := s.repo.List(ctx, userID)
	if ps == nil && err == nil {
		ps = []Passkey{}
	}
	return ps, err
}

// Delete removes one of the user's passkeys: 404 passkey_not_found for an
// id the user does not hold (another user's included); 409
// last_signin_method when it is the account's last way to sign in. The
// accounts module decides, over every way in the account holds.
func (s *Service) Delete(ctx context.Context, userID, id string) error {
	return s.accounts.RemovePasskey(ctx, userID, id)
}

// Count is how many passkeys the user holds (a sign-in method for the
// accounts module).
func (s *Service) Count(ctx context.Context, userID string) (int, error) {
	ps, err := s.repo.List(ctx, userID)
	return len(ps), err
}

// Section, ExportUser and PurgeUser make the module a core.UserData owner:
// deleting an account removes its passkeys and challenges.
func (s *Service) Section() string { return "passkeys" }

// ExportUser returns the user's passkeys (never their keys: the export
// shows what the list shows).
func (s *Service) ExportUser(ctx context.Context, userID string) (any, error) {
	ps, err := s.repo.List(ctx, userID)
	if ps == nil && err == nil {
		ps = []Passkey{}
	}
	return ps, err
}

func (s *Service) PurgeUser(ctx context.Context, userID string) error {
	return s.repo.DeleteByUser(ctx, userID)
}

// keep stores a begun ceremony's challenge, after purging expired ones.
func (s *Service) keep(ctx context.Context, o Options, userID string, p Purpose) error {
	now := s.clock.Now()
	if err := s.repo.PurgeChallenges(ctx, now); err != nil {
		return err
	}
	return s.repo.CreateChallenge(ctx, Challenge{ID: ChallengeID(o.Challenge), UserID: userID, Purpose: p,
		Session: o.Session, ExpiresAt: now.Add(ChallengeTTL)})
}

// take spends the challenge the answer signs.
func (s *Service) take(ctx context.Context, a Answer, p Purpose, userID string) (Challenge, error) {
	if a.Challenge == "" {
		return Challenge{}, errChallenge(p)
	}
	c, err := s.repo.TakeChallenge(ctx, ChallengeID(a.Challenge), Spend(p, userID, s.clock.Now()))
	if core.IsKind(err, core.KindNotFound) {
		return Challenge{}, errChallenge(p)
	}
	return c, err
}
