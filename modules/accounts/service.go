package accounts

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"tandem/core"
)

// Admins is the configured list of administrator e-mails (TANDEM_ADMIN_EMAILS).
type Admins []string

// Service holds every account rule of the spec and DESIGN.md.
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
	dummy   string // a real hash, verified on unknown e-mails so timing reveals nothing
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
}

func NewService(d Deps) (*Service, error) {
	dummy, err := d.Hasher.Hash("timing-equaliser-password")
	if err != nil {
		return nil, fmt.Errorf("accounts: hasher: %w", err)
	}
	admins := make(Admins, len(d.Admins))
	for i, a := range d.Admins {
		admins[i] = FoldEmail(a)
	}
	return &Service{repo: d.Repo, sender: d.Sender, hasher: d.Hasher, cache: d.Cache, limiter: d.Limiter,
		bus: d.Bus, clock: d.Clock, ids: d.IDs, admins: admins, dummy: dummy}, nil
}

// AddDataOwners registers the modules whose user data deletion purges and
// export gathers (bootstrap calls it once, before serving).
func (s *Service) AddDataOwners(owners ...core.UserData) { s.owners = append(s.owners, owners...) }

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
	a := Account{ID: s.ids.New(), Email: email, PasswordHash: hash, CreatedAt: now, UpdatedAt: now}
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

// VerifyEmail checks the sign-up code and returns the first token. An
// administrator's rights never attach to a password chosen before the
// address was proven: an administrator's pending password is dropped here.
func (s *Service) VerifyEmail(ctx context.Context, userID, code string, cl Client) (Verification, error) {
	a, err := s.account(ctx, userID)
	if err != nil {
		return Verification{}, err
	}
	if a.Verified {
		return Verification{}, errInvalidCode()
	}
	c, err := s.checkCode(ctx, userID, PurposeVerify, code, cl.IP)
	if err != nil {
		return Verification{}, err
	}
	if a.PasswordHash != "" && s.IsAdmin(a) {
		if err := s.repo.ClearPendingPassword(ctx, userID); err != nil {
			return Verification{}, err
		}
		a.PasswordHash = ""
	}
	plain, t := s.token(userID, cl)
	if _, err := s.repo.UpdateCode(ctx, userID, PurposeVerify, SpendVerification(c.Hash, t)); err != nil {
		return Verification{}, codeGone(err)
	}
	return Verification{Token: plain, PasswordRequired: a.PasswordHash == ""}, nil
}

// Login checks the password. Each attempt is reserved in the database
// before the password is verified, under two counters: one per (e-mail,
// client IP), which locks out a guesser without locking the owner out from
// elsewhere, and a much higher one per e-mail across all IPs. A successful
// attempt gives both reservations back.
func (s *Service) Login(ctx context.Context, email, password string, cl Client) (string, string, error) {
	a, err := s.checkLogin(ctx, email, password, cl, apiLogins)
	if err != nil {
		return "", "", err
	}
	plain, err := s.newSession(ctx, a.ID, cl)
	if err != nil {
		return "", "", err
	}
	return a.ID, plain, nil
}

// LoginAdmin is Login for the administrator console: the same counted
// attempts and password check, then a session only for an administrator
// (403 forbidden for anyone else, who gets none). The session is a
// console token (ConsolePrefix, ConsoleTTL): listed and revoked like any
// other, but only the console takes it, and the console takes no app token.
func (s *Service) LoginAdmin(ctx context.Context, email, password string, cl Client) (core.Principal, string, error) {
	a, err := s.checkLogin(ctx, email, password, cl, consoleLogins)
	if err != nil {
		return core.Principal{}, "", err
	}
	if !s.IsAdmin(a) {
		return core.Principal{}, "", core.Forbidden("forbidden", "administrators only")
	}
	plain, t := s.token(a.ID, cl)
	plain, t.ExpiresAt = ConsolePrefix+plain, t.CreatedAt.Add(ConsoleTTL)
	t.Hash = HashToken(plain)
	revoked, err := s.repo.CreateToken(ctx, t, MaxSessions)
	if err != nil {
		return core.Principal{}, "", err
	}
	s.cache.Forget(revoked...)
	return core.Principal{UserID: a.ID, Email: a.Email, Admin: true, ExpiresAt: t.ExpiresAt}, plain, nil
}

// checkLogin checks a login's e-mail and password, each attempt reserved
// before the password is verified (see Login) under rules, the API's or the
// console's own counters: failed API logins never lock the console. An
// account without a password (see SignUp) refuses every password, after the
// same work as a wrong one.
func (s *Service) checkLogin(ctx context.Context, email, password string, cl Client, rules loginRules) (Account, error) {
	if strings.TrimSpace(email) == "" || password == "" {
		return Account{}, core.Invalid("", "email and password are required")
	}
	email = FoldEmail(email)
	if err := s.reserveLogin(ctx, rules, email, cl.IP); err != nil {
		return Account{}, err
	}
	a, err := s.repo.GetByEmail(ctx, email)
	if err != nil && !core.IsKind(err, core.KindNotFound) {
		return Account{}, err
	}
	stored := a.PasswordHash
	if stored == "" {
		stored = s.dummy
	}
	ok, verr := s.verifyPassword(stored, password)
	if verr != nil {
		return Account{}, verr
	}
	if err != nil || a.PasswordHash == "" || !ok {
		return Account{}, core.Unauthorized("invalid_credentials", "invalid e-mail or password")
	}
	if err := s.releaseLogin(ctx, rules, email, cl.IP); err != nil {
		return Account{}, err
	}
	if !a.Verified {
		return Account{}, core.Forbidden("email_not_verified", "verify your e-mail before logging in")
	}
	return a, nil
}

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

func (s *Service) reserveLogin(ctx context.Context, r loginRules, email, clientIP string) error {
	if err := s.limiter.Hit(ctx, r.perIP, email+"\x00"+clientIP, "rate_limited"); err != nil {
		return err
	}
	return s.limiter.Hit(ctx, r.perEmail, email, "rate_limited")
}

func (s *Service) releaseLogin(ctx context.Context, r loginRules, email, clientIP string) error {
	if err := s.limiter.Undo(ctx, r.perIP, email+"\x00"+clientIP); err != nil {
		return err
	}
	return s.limiter.Undo(ctx, r.perEmail, email)
}

// hitCodeRequest counts a request for a mailed code (sign-up or reset) per
// (e-mail, client IP), under a higher ceiling per e-mail: a stranger's
// requests cannot stop the owner's from another address.
func (s *Service) hitCodeRequest(ctx context.Context, email, clientIP string) error {
	if err := s.limiter.Hit(ctx, ruleCodesPerEmailIP, email+"\x00"+clientIP, "rate_limited"); err != nil {
		return err
	}
	return s.limiter.Hit(ctx, ruleCodesPerEmail, email, "rate_limited")
}

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
// verify step; a userId alone is 400 invalid_code. It revokes every older
// token and returns a new one; a never-verified e-mail becomes verified
// (the code proved the mailbox).
func (s *Service) UpdatePassword(ctx context.Context, userID, password string, proof ResetProof, cl Client) (string, error) {
	if err := ValidatePassword("newPassword", password); err != nil {
		return "", err
	}
	if _, err := s.account(ctx, userID); err != nil {
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
	revoked, err := s.repo.UpdateCode(ctx, userID, PurposeReset, SpendReset(c.Hash, hash, s.clock.Now(), t))
	if err != nil {
		return "", codeGone(err)
	}
	s.cache.Forget(revoked...)
	return plain, nil
}

// ChangePassword sets the signed-in user's password. It needs the current
// password, unless the account has none (a disputed sign-up, see SignUp):
// a stolen token alone cannot take the account. A wrong current password
// is counted like a failed login. Every token is revoked and a new one
// returned.
func (s *Service) ChangePassword(ctx context.Context, userID, current, password string, cl Client) (string, error) {
	if err := ValidatePassword("newPassword", password); err != nil {
		return "", err
	}
	a, err := s.account(ctx, userID)
	if err != nil {
		return "", err
	}
	if err := s.checkCurrentPassword(ctx, a, current, cl); err != nil {
		return "", err
	}
	hash, err := s.hash(password)
	if err != nil {
		return "", err
	}
	plain, t := s.token(userID, cl)
	revoked, err := s.repo.SetPassword(ctx, userID, hash, s.clock.Now(), t)
	if err != nil {
		return "", err
	}
	s.cache.Forget(revoked...)
	return plain, nil
}

func (s *Service) checkCurrentPassword(ctx context.Context, a Account, current string, cl Client) error {
	if a.PasswordHash == "" {
		return nil
	}
	if current == "" {
		return core.Invalid("invalid_request", "currentPassword is required")
	}
	if err := s.reserveLogin(ctx, apiLogins, a.Email, cl.IP); err != nil {
		return err
	}
	ok, err := s.verifyPassword(a.PasswordHash, current)
	if err != nil {
		return err
	}
	if !ok {
		return core.Forbidden("invalid_credentials", "the current password is wrong")
	}
	return s.releaseLogin(ctx, apiLogins, a.Email, cl.IP)
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

func hasherErr(err error) error {
	var e *core.Error
	if errors.As(err, &e) {
		return e
	}
	return core.Internal(err)
}

// checkResetProof finds the proven reset code and checks the presented proof
// in constant time; every proof takes one of the code's tries first, and the
// right one is spent with the code.
func (s *Service) checkResetProof(ctx context.Context, userID string, proof ResetProof, clientIP string) (Code, error) {
	code, token := strings.TrimSpace(proof.Code), strings.TrimSpace(proof.ResetToken)
	if code == "" && token == "" {
		return Code{}, core.Invalid("invalid_code", "send the verified code or the resetToken with the new password")
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

// Authenticate resolves a bearer token to the caller, through the cache.
func (s *Service) Authenticate(ctx context.Context, token string) (core.Principal, error) {
	if strings.HasPrefix(token, ConsolePrefix) { // a console session is no API token
		return core.Principal{}, errUnauthorized()
	}
	return s.authenticate(ctx, token)
}

// AuthenticateConsole resolves a console session token (LoginAdmin's) to
// its holder; an app token is refused.
func (s *Service) AuthenticateConsole(ctx context.Context, token string) (core.Principal, error) {
	if !strings.HasPrefix(token, ConsolePrefix) {
		return core.Principal{}, errUnauthorized()
	}
	return s.authenticate(ctx, token)
}

func (s *Service) authenticate(ctx context.Context, token string) (core.Principal, error) {
	if token == "" || len(token) > 256 {
		return core.Principal{}, errUnauthorized()
	}
	h := HashToken(token)
	sess, ok := s.cache.Get(h)
	if !ok {
		var err error
		sess, err = s.repo.Session(ctx, h)
		if core.IsKind(err, core.KindNotFound) {
			return core.Principal{}, errUnauthorized()
		}
		if err != nil {
			return core.Principal{}, err
		}
	}
	now := s.clock.Now()
	if !now.Before(sess.ExpiresAt) {
		return core.Principal{}, errUnauthorized()
	}
	if !ok {
		s.touch(ctx, h, sess, now)
		s.cache.Put(h, sess)
	}
	return core.Principal{UserID: sess.UserID, Email: sess.Email, Admin: sess.Admin || s.isConfiguredAdmin(sess.Email), ExpiresAt: sess.ExpiresAt}, nil
}

// touch records a token's use at most once a minute, and only on a cache
// miss, so reads never pay a write per request. A failure is not the
// caller's problem: the request is already authenticated.
func (s *Service) touch(ctx context.Context, tokenHash string, sess Session, now time.Time) {
	if now.Sub(sess.LastUsedAt) >= sessionTouch {
		_ = s.repo.TouchToken(ctx, tokenHash, now)
	}
}

// Logout revokes the presented token, or with all every token of its user.
func (s *Service) Logout(ctx context.Context, userID, token string, all bool) error {
	if all {
		revoked, err := s.repo.DeleteTokens(ctx, userID)
		s.cache.Forget(revoked...)
		return err
	}
	// Forgotten after the delete committed: every process evicts on hearing
	// it, so none may read the token back in from the table after that.
	h := HashToken(token)
	err := s.repo.DeleteToken(ctx, h)
	s.cache.Forget(h)
	return err
}

// Sessions lists the user's live tokens, newest first.
func (s *Service) Sessions(ctx context.Context, userID string) ([]Token, error) {
	ts, err := s.repo.Tokens(ctx, userID)
	if err != nil {
		return nil, err
	}
	now := s.clock.Now()
	live := ts[:0]
	for _, t := range ts {
		if now.Before(t.ExpiresAt) {
			live = append(live, t)
		}
	}
	return live, nil
}

// DeleteSession revokes one of the user's sessions by its id; another
// user's session id is not found.
func (s *Service) DeleteSession(ctx context.Context, userID, sessionID string) error {
	h, err := s.repo.DeleteSession(ctx, userID, sessionID)
	if core.IsKind(err, core.KindNotFound) {
		return core.NotFound("not_found", "session not found")
	}
	if err != nil {
		return err
	}
	s.cache.Forget(h)
	return nil
}

// Purge deletes expired tokens, codes and reset proofs (a periodic job).
func (s *Service) Purge(ctx context.Context) (int, error) {
	return s.repo.Purge(ctx, s.clock.Now())
}

// Profile returns the caller's account.
func (s *Service) Profile(ctx context.Context, userID string) (Account, error) {
	return s.account(ctx, userID)
}

// ProfilePatch holds the fields a PATCH may change; nil means unchanged.
type ProfilePatch struct {
	DisplayName *string
	Timezone    *string
}

func (s *Service) UpdateProfile(ctx context.Context, userID string, p ProfilePatch) (Account, error) {
	a, err := s.account(ctx, userID)
	if err != nil {
		return Account{}, err
	}
	before := a.Timezone
	if p.DisplayName != nil {
		name := strings.TrimSpace(*p.DisplayName)
		if len([]rune(name)) > MaxDisplayName {
			return Account{}, core.Invalid("invalid_request", "displayName must be at most 100 characters")
		}
		if err := core.CheckText("displayName", name, false); err != nil {
			return Account{}, err
		}
		a.DisplayName = name
	}
	if p.Timezone != nil {
		if err := ValidateTimezone(*p.Timezone); err != nil {
			return Account{}, err
		}
		a.Timezone = *p.Timezone
	}
	a.UpdatedAt = s.clock.Now()
	if err := s.repo.UpdateProfile(ctx, a); err != nil {
		return Account{}, err
	}
	if a.Timezone != before {
		s.bus.Publish(ctx, core.TimezoneChanged{UserID: userID, Timezone: a.Timezone})
	}
	return a, nil
}

// Location is the user's timezone (UTC when unset), for modules that count days.
func (s *Service) Location(ctx context.Context, userID string) (*time.Location, error) {
	a, err := s.account(ctx, userID)
	if err != nil {
		return nil, err
	}
	if a.Timezone == "" {
		return time.UTC, nil
	}
	loc, err := time.LoadLocation(a.Timezone)
	if err != nil {
		return time.UTC, nil
	}
	return loc, nil
}

// Exists answers whether the account exists.
func (s *Service) Exists(ctx context.Context, userID string) (bool, error) {
	_, err := s.repo.Get(ctx, userID)
	if core.IsKind(err, core.KindNotFound) {
		return false, nil
	}
	return err == nil, err
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

// Delete purges the user's data in every module, then the account, then
// announces AccountDeleted. Purges are idempotent: a failure leaves the
// account in place and the deletion can simply be retried.
func (s *Service) Delete(ctx context.Context, userID string) error {
	if _, err := s.account(ctx, userID); err != nil {
		return err
	}
	for _, o := range s.owners {
		if err := o.PurgeUser(ctx, userID); err != nil {
			return fmt.Errorf("purge %s: %w", o.Section(), err)
		}
	}
	revoked, err := s.repo.Delete(ctx, userID)
	if err != nil {
		return err
	}
	s.cache.Forget(revoked...)
	s.bus.Publish(ctx, core.AccountDeleted{UserID: userID})
	return nil
}

// Export gathers the account and every module's data of the user.
func (s *Service) Export(ctx context.Context, userID string) (Account, map[string]any, error) {
	a, err := s.account(ctx, userID)
	if err != nil {
		return Account{}, nil, err
	}
	out := make(map[string]any, len(s.owners))
	for _, o := range s.owners {
		v, err := o.ExportUser(ctx, userID)
		if err != nil {
			return Account{}, nil, fmt.Errorf("export %s: %w", o.Section(), err)
		}
		out[o.Section()] = v
	}
	return a, out, nil
}

// checkCode applies expiry, attempt limits and matching. Each try is
// counted before the code is compared (Hit-before-work), so a burst of
// concurrent guesses gets at most the limits' answers; the caller spends
// the code on a match (or ProveCode gives the try back).
func (s *Service) checkCode(ctx context.Context, userID string, p Purpose, code, clientIP string) (Code, error) {
	c, err := s.takeTry(ctx, userID, p, clientIP)
	if core.IsKind(err, core.KindNotFound) {
		return Code{}, errInvalidCode()
	}
	if err != nil {
		return Code{}, err
	}
	now := s.clock.Now()
	if !now.Before(c.ExpiresAt) {
		return Code{}, errInvalidCode()
	}
	if c.Attempts > CodeMaxAttempts {
		return Code{}, errTooManyTries(c, now)
	}
	if !codeMatches(c, strings.TrimSpace(code)) {
		return Code{}, errInvalidCode()
	}
	return c, s.giveTryBack(ctx, c, clientIP)
}

// takeTry counts one try at the user's code: first against the client IP's
// own tries at this code (CodeTriesPerIP, refused there without touching
// the code), then against the code's ceiling across every IP
// (TakeCodeAttempt). core.KindNotFound when there is no code.
func (s *Service) takeTry(ctx context.Context, userID string, p Purpose, clientIP string) (Code, error) {
	c, err := s.repo.GetCode(ctx, userID, p)
	if err != nil {
		return Code{}, err
	}
	if err := s.limiter.Hit(ctx, ruleCodeTriesIP, codeTryKey(c, clientIP), "too_many_attempts"); err != nil {
		if e := core.As(err); e.Kind == core.KindRateLimited {
			return Code{}, core.RateLimited(e.Code, msgTooManyTries, e.RetryAfter)
		}
		return Code{}, err
	}
	var taken Code
	_, err = s.repo.UpdateCode(ctx, userID, p, func(c Code, a Account) (CodeUpdate, error) {
		u, err := CountTry(c, a)
		taken = *u.Code
		return u, err
	})
	return taken, err
}

// codeGone: a code spent or replaced between the check and the write, or
// its account deleted meanwhile, is an invalid code like any other.
func codeGone(err error) error {
	if core.IsKind(err, core.KindNotFound) {
		return errInvalidCode()
	}
	return err
}

// giveTryBack returns a right try to the client IP's count: only wrong
// tries are counted against it (the code's own count gets it back from
// ProveCode, or dies with the code).
func (s *Service) giveTryBack(ctx context.Context, c Code, clientIP string) error {
	return s.limiter.Undo(ctx, ruleCodeTriesIP, codeTryKey(c, clientIP))
}

// codeTryKey is keyed by the code itself: a new code brings new tries.
func codeTryKey(c Code, clientIP string) string { return clip(c.Hash, 16) + "\x00" + clientIP }

func errTooManyTries(c Code, now time.Time) error {
	return core.RateLimited("too_many_attempts", msgTooManyTries, c.ExpiresAt.Sub(now))
}

const msgTooManyTries = "too many wrong codes; request a new one"

// sendCode stores a new code and queues its mail in one transaction, then
// wakes the Sender: the request never waits for the relay, and a relay that
// is down delays the mail, not the answer. The mail can never outlive the
// code: it is dropped unsent at the code's expiry.
func (s *Service) sendCode(ctx context.Context, a Account, p Purpose) error {
	code := newCode()
	now := s.clock.Now()
	c := Code{UserID: a.ID, Purpose: p, Hash: hashCode(a.ID, p, code), ExpiresAt: now.Add(CodeTTL), CreatedAt: now}
	m := OutboxMail{ID: s.ids.New(), UserID: a.ID, Kind: p, Mail: codeMail(a.Email, p, code),
		CreatedAt: now, NotAfter: c.ExpiresAt, NextAttemptAt: now}
	if err := s.repo.PutCode(ctx, c, m); err != nil {
		return err
	}
	if s.sender != nil {
		s.sender.Wake()
	}
	return nil
}

func codeMail(to string, p Purpose, code string) Mail {
	if p == PurposeReset {
		return Mail{To: to, Subject: "Your Tandem password reset code",
			Text: "Your password reset code is " + code + ".\n\nIt expires in 15 minutes. If you did not ask for it, ignore this e-mail.\n"}
	}
	return Mail{To: to, Subject: "Your Tandem verification code",
		Text: "Welcome to Tandem! Your verification code is " + code + ".\n\nIt expires in 15 minutes. If you did not ask for it, ignore this e-mail: nobody can use your address without this code.\n"}
}

func (s *Service) token(userID string, cl Client) (string, Token) {
	plain, hash := newToken()
	now := s.clock.Now()
	return plain, Token{ID: s.ids.New(), Hash: hash, UserID: userID, UserAgent: clip(core.CleanText(cl.UserAgent), MaxUserAgent),
		CreatedAt: now, ExpiresAt: now.Add(TokenTTL)}
}

// newSession stores a new token; beyond MaxSessions the oldest are revoked.
func (s *Service) newSession(ctx context.Context, userID string, cl Client) (string, error) {
	plain, t := s.token(userID, cl)
	revoked, err := s.repo.CreateToken(ctx, t, MaxSessions)
	if err != nil {
		return "", err
	}
	s.cache.Forget(revoked...)
	return plain, nil
}

// Remember records a as the request's read memo answer for its account:
// a batch read (the home screen's) answers at once what the reads that
// follow (profiles, timezones) would ask. Without a memo it does nothing.
func Remember(ctx context.Context, a Account) { core.Remember(ctx, accountKey(a.ID), a, nil) }

func accountKey(userID string) string { return "accounts.account:" + userID }

func (s *Service) account(ctx context.Context, userID string) (Account, error) {
	if strings.TrimSpace(userID) == "" {
		return Account{}, core.Invalid("invalid_request", "userId is required")
	}
	a, err := core.Memo(ctx, accountKey(userID), func() (Account, error) { return s.repo.Get(ctx, userID) })
	if core.IsKind(err, core.KindNotFound) {
		return Account{}, errUserNotFound()
	}
	return a, err
}

func (s *Service) isConfiguredAdmin(email string) bool { return slices.Contains(s.admins, email) }

func errEmailTaken() error {
	return core.Conflict("email_already_registered", "this e-mail is already registered")
}
func errInvalidCode() error { return core.Invalid("invalid_code", "invalid or expired code") }
func errResetNotProven() error {
	return core.Invalid("invalid_code", "verify a reset code first")
}
func errUserNotFound() error { return core.NotFound("user_not_found", "user not found") }
func errUnauthorized() error {
	return core.Unauthorized("unauthorized", "missing, invalid or expired token")
}
