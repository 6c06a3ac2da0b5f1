package accounts

import (
	"context"
	"strings"
	"time"

	"tandem/core"
)

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
	if core.IsKind(err, core.KindUnauthorized) {
		return core.Principal{}, "", s.explainNoPassword(ctx, email, err)
	}
	if err != nil {
		return core.Principal{}, "", err
	}
	if !s.IsAdmin(a) {
		return core.Principal{}, "", core.Forbidden("forbidden", "admin.administratorsOnly", "administrators only")
	}
	plain, t := s.token(a.ID, cl)
	plain, t.ExpiresAt = ConsolePrefix+plain, t.CreatedAt.Add(ConsoleTTL)
	t.Hash = HashToken(plain)
	revoked, err := s.repo.CreateToken(ctx, t, KeepSessions(t, MaxSessions))
	if err != nil {
		return core.Principal{}, "", err
	}
	s.cache.Forget(revoked...)
	return core.Principal{UserID: a.ID, Email: a.Email, Admin: true, ExpiresAt: t.ExpiresAt, SignedInAt: t.CreatedAt}, plain, nil
}

// explainNoPassword turns a refused console sign-in of a configured
// administrator (TANDEM_ADMIN_EMAILS) whose verified account has no
// password into the reason and the way out: such an administrator's
// sign-up password is dropped at verification (VerifyEmail), and "invalid
// e-mail or password" alone sent them hunting for a typo. Anyone else,
// and a configured administrator who has a password, keeps the generic
// refusal (err), so the console tells no stranger whether an address has
// an account or a password. What the longer message tells is little and
// already public: that an address the operator configured has a verified
// account (a sign-up with it already answers email_already_registered),
// and that it has no password to guess; a reset still needs the mailbox.
// The attempt was counted like any other before this runs.
func (s *Service) explainNoPassword(ctx context.Context, email string, err error) error {
	email = FoldEmail(email)
	if !s.isConfiguredAdmin(email) {
		return err
	}
	a, gerr := s.repo.GetByEmail(ctx, email)
	if gerr != nil || !a.Verified || a.PasswordHash != "" {
		return err
	}
	return core.Unauthorized("invalid_credentials", "accounts.administratorHasNoPasswordYet", "this administrator has no password yet (an administrator's sign-up "+
		"password is not kept): set one on the server with tandem admin create EMAIL, or with a password reset in the app")
}

// checkLogin checks a login's e-mail and password, each attempt reserved
// before the password is verified (see Login) under rules, the API's or the
// console's own counters: failed API logins never lock the console. An
// account without a password (see SignUp) refuses every password, after the
// same work as a wrong one.
func (s *Service) checkLogin(ctx context.Context, email, password string, cl Client, rules loginRules) (Account, error) {
	if strings.TrimSpace(email) == "" || password == "" {
		return Account{}, core.Invalid("invalid_request", "accounts.emailPasswordRequired", "email and password are required")
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
		return Account{}, core.Unauthorized("invalid_credentials", "accounts.invalidMailPassword", "invalid e-mail or password")
	}
	if err := s.releaseLogin(ctx, rules, email, cl.IP); err != nil {
		return Account{}, err
	}
	if !a.Verified {
		return Account{}, core.Forbidden("email_not_verified", "accounts.verifyMailBeforeLogging", "verify your e-mail before logging in")
	}
	return a, DecideSession(a)
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
	if !now.Before(sess.ExpiresAt) || sess.Blocked { // a block revokes; this holds a token that raced it
		return core.Principal{}, errUnauthorized()
	}
	if !ok {
		s.touch(ctx, h, sess, now)
		s.cache.Put(h, sess)
	}
	return core.Principal{UserID: sess.UserID, Email: sess.Email, ExpiresAt: sess.ExpiresAt, SignedInAt: sess.SignedInAt,
		Admin: sess.Verified && (sess.Admin || s.isConfiguredAdmin(sess.Email))}, nil
}

// touch records a token's use at most once a minute, and only on a cache
// miss, so reads never pay a write per request. A failure is not the
// caller's problem: the request is already authenticated.
func (s *Service) touch(ctx context.Context, tokenHash string, sess Session, now time.Time) {
	if now.Sub(sess.LastUsedAt) >= sessionTouch {
		_ = s.repo.TouchToken(ctx, tokenHash, now)
	}
}

// Logout revokes the presented token, or with all is the panic button
// (LogoutEverywhere).
func (s *Service) Logout(ctx context.Context, userID, token string, all bool) error {
	if all {
		return s.LogoutEverywhere(ctx, userID)
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
		return core.NotFound("not_found", "accounts.sessionNotFound", "session not found")
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

func (s *Service) token(userID string, cl Client) (string, Token) {
	plain, hash := newToken()
	now := s.clock.Now()
	return plain, Token{ID: s.ids.New(), Hash: hash, UserID: userID, UserAgent: clip(core.CleanText(cl.UserAgent), MaxUserAgent),
		CreatedAt: now, ExpiresAt: now.Add(TokenTTL)}
}

// newSession stores a new token; beyond MaxSessions the oldest are revoked.
func (s *Service) newSession(ctx context.Context, userID string, cl Client) (string, error) {
	plain, t := s.token(userID, cl)
	revoked, err := s.repo.CreateToken(ctx, t, KeepSessions(t, MaxSessions))
	if err != nil {
		return "", err
	}
	s.cache.Forget(revoked...)
	return plain, nil
}
