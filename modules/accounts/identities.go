package accounts

import (
	"context"
	"errors"
	"strings"
	"time"

	"tandem/core"
)

// Sign-in providers: an identity is one provider's subject, linked to one
// account.
const (
	ProviderApple  = "apple"
	ProviderGoogle = "google"
	// MethodPassword is the sign-in method of an account with a password.
	MethodPassword = "password"
	MaxSubject     = 255
	signInsPerIP   = 10
)

// ruleSignIns counts sign-ins with an ID token per client IP, reserved
// before the token is checked and given back when it signs in (like login).
var ruleSignIns = core.RateRule{Name: "signin_ip", Limit: signInsPerIP, Window: failedLoginsSpan}

// Identity links a provider's subject to an account.
type Identity struct {
	Provider  string
	Subject   string
	UserID    string
	Email     string // the e-mail the provider gave at the first sign-in (FoldEmail form), "" when none
	CreatedAt time.Time
}

// IdentityClaim is what a verified ID token says (and, for Apple, the
// name the app sends beside it on the first sign-in).
type IdentityClaim struct {
	Provider      string
	Subject       string
	Email         string
	EmailVerified bool
	Name          string
	Locale        string // the caller's (Client.Locale): a new account starts with it
	// TokenHash is the ID token's hex SHA-256, and ExpiresAt its exp:
	// remembered until then, so that a token signs in once.
	TokenHash string
	ExpiresAt time.Time
}

// SignInRequest is a sign-in with a provider's ID token.
type SignInRequest struct {
	Provider   string
	IDToken    string
	Nonce      string
	GivenName  string // Apple only, first sign-in only: becomes the display name of a new account
	FamilyName string
}

// IDTokenVerifier checks a provider's ID token (adapters/signin).
type IDTokenVerifier interface {
	// Verify returns the token's claim: core.KindUnauthorized
	// (invalid_token) for any fault of the token or an unconfigured
	// provider, core.KindUnavailable when the provider's keys cannot be had.
	Verify(ctx context.Context, provider, token, nonce string) (IdentityClaim, error)
}

// IdentityStore keeps the identities.
type IdentityStore interface {
	// SignIn loads, in one transaction and held against concurrent
	// writers, the identity (provider, subject) with its account, and the
	// account with e-mail (when e-mail is not ""), runs decide on them and
	// writes what it returns. decide's error is returned as it is, and
	// nothing is written; core.KindConflict when a concurrent sign-in
	// stored the same identity or e-mail first. decide may run more than once.
	SignIn(ctx context.Context, provider, subject, email string, decide SignInDecision) (SignInUpdate, error)
	// Identities lists the account's identities, oldest first.
	Identities(ctx context.Context, userID string) ([]Identity, error)
	// Unlink removes the identity of provider from the account, if the
	// decision allows it on the account and its identities as loaded and
	// held; core.KindNotFound (not_linked) when there is none.
	Unlink(ctx context.Context, userID, provider string, decide UnlinkDecision) error
}

// SignInState is what SignIn loads.
type SignInState struct {
	Identity *Identity // the linked identity, nil when the subject is new
	Linked   *Account  // the identity's account
	ByEmail  *Account  // the account with the claim's e-mail, nil when none
}

// SignInUpdate is what a SignInDecision writes: the account signed in to
// (created first when Create), the identity linked when Link, and, on a
// pending account taken over, its password dropped and its e-mail verified.
type SignInUpdate struct {
	Account  Account
	Create   bool
	Link     *Identity
	TakeOver bool
}

// SignInDecision decides a sign-in on what SignIn loaded.
type SignInDecision func(SignInState) (SignInUpdate, error)

// DecideSignIn is the rule of a sign-in with a verified claim, at now:
//   - a linked subject signs in to its account;
//   - a new subject with an e-mail the provider verified joins the verified
//     account with that e-mail, or takes over the pending (unverified) one,
//     whose password (typed by whoever signed up, maybe not the owner) is
//     dropped and whose e-mail becomes verified;
//   - a new subject whose e-mail is free gets a new account with id newID,
//     verified when the provider verified the e-mail, without a password
//     (no e-mail at all: 400 email_required, as every account has one);
//   - a new subject with an unverified e-mail held by an account is
//     refused (409 email_already_registered): it never joins that account,
//     and the e-mail is unique.
func DecideSignIn(c IdentityClaim, newID string, now time.Time) SignInDecision {
	return func(st SignInState) (SignInUpdate, error) {
		if st.Identity != nil {
			if st.Linked == nil {
				return SignInUpdate{}, core.Internal(errIdentityOrphan)
			}
			return SignInUpdate{Account: *st.Linked}, nil
		}
		link := &Identity{Provider: c.Provider, Subject: c.Subject, Email: c.Email, CreatedAt: now}
		if st.ByEmail != nil {
			if !c.EmailVerified {
				return SignInUpdate{}, errEmailTaken()
			}
			a := *st.ByEmail
			link.UserID = a.ID
			if a.Verified {
				return SignInUpdate{Account: a, Link: link}, nil
			}
			a.Verified, a.PasswordHash, a.UpdatedAt = true, "", now
			return SignInUpdate{Account: a, Link: link, TakeOver: true}, nil
		}
		if c.Email == "" {
			return SignInUpdate{}, core.Invalid("email_required", "the ID token carries no e-mail; the first sign-in needs one")
		}
		a := Account{ID: newID, Email: c.Email, Verified: c.EmailVerified, DisplayName: c.Name, Locale: c.Locale,
			CreatedAt: now, UpdatedAt: now}
		link.UserID = a.ID
		return SignInUpdate{Account: a, Create: true, Link: link}, nil
	}
}

// UnlinkDecision decides whether the account may lose the identity of
// provider, given its identities as loaded.
type UnlinkDecision func(a Account, ids []Identity) error

// DecideUnlink lets a method go only while another remains: a password,
// another identity, or one of the account's passkeys (their number). The
// last one is 409 last_signin_method.
func DecideUnlink(provider string, passkeys int) UnlinkDecision {
	return func(a Account, ids []Identity) error {
		linked, others := false, 0
		for _, id := range ids {
			if id.Provider == provider {
				linked = true
			} else {
				others++
			}
		}
		if !linked {
			return errNotLinked()
		}
		if a.PasswordHash == "" && others == 0 && passkeys == 0 {
			return core.Conflict("last_signin_method", "this is the account's last way to sign in; add another first")
		}
		return nil
	}
}

// SignInMethods lists how the account signs in: "password" when it has
// one, then each linked provider, in the order linked, then "passkey" when
// it holds any.
func SignInMethods(a Account, ids []Identity, passkeys int) []string {
	out := []string{}
	if a.PasswordHash != "" {
		out = append(out, MethodPassword)
	}
	for _, id := range ids {
		out = append(out, id.Provider)
	}
	if passkeys > 0 {
		out = append(out, MethodPasskey)
	}
	return out
}

// MethodPasskey names passkeys among the sign-in methods.
const MethodPasskey = "passkey"

// Passkeys counts a user's passkeys (the passkeys module, bound in
// bootstrap): they are sign-in methods too.
type Passkeys interface {
	Count(ctx context.Context, userID string) (int, error)
}

// UsePasskeys tells the service how to count a user's passkeys (bootstrap
// calls it once, before serving; without it there are none).
func (s *Service) UsePasskeys(p Passkeys) { s.passkeys = p }

func (s *Service) passkeyCount(ctx context.Context, userID string) (int, error) {
	if s.passkeys == nil {
		return 0, nil
	}
	return s.passkeys.Count(ctx, userID)
}

var errIdentityOrphan = errors.New("accounts: identity without its account")

func errNotLinked() error {
	return core.NotFound("not_found", "this sign-in method is not linked to the account")
}

// SignIn signs in with a provider's ID token (see DecideSignIn): a new
// session for the account, and whether the account was created. Each
// attempt is reserved per client IP before the token is checked, and given
// back when it signs in, like a login.
func (s *Service) SignIn(ctx context.Context, r SignInRequest, cl Client) (userID, token string, created bool, err error) {
	if s.idTokens == nil {
		return "", "", false, core.Unauthorized("invalid_token", "the ID token is not valid")
	}
	if err := s.limiter.Hit(ctx, ruleSignIns, cl.IP, "rate_limited"); err != nil {
		return "", "", false, err
	}
	c, err := s.idTokens.Verify(ctx, r.Provider, r.IDToken, r.Nonce)
	if err != nil {
		return "", "", false, err
	}
	c.Name, c.Locale = displayName(r.GivenName, r.FamilyName), cl.Locale
	if c.Email != "" {
		e, err := NormalizeEmail(c.Email)
		if err != nil { // a provider's e-mail we cannot store: sign in without it
			e = ""
		}
		c.Email = e
	}
	var u SignInUpdate
	for try := 0; ; try++ {
		u, err = s.repo.SignIn(ctx, c.Provider, c.Subject, c.Email, DecideSignIn(c, s.ids.New(), s.clock.Now()))
		if core.IsKind(err, core.KindConflict) && try == 0 && !isEmailTaken(err) {
			continue // a concurrent first sign-in stored it: decide again on what it wrote
		}
		if err != nil {
			return "", "", false, err
		}
		break
	}
	if err := s.limiter.Undo(ctx, ruleSignIns, cl.IP); err != nil {
		return "", "", false, err
	}
	plain, err := s.newSession(ctx, u.Account.ID, cl)
	if err != nil {
		return "", "", false, err
	}
	return u.Account.ID, plain, u.Create, nil
}

// displayName joins the names Apple's app sends, when they make a valid one.
func displayName(given, family string) string {
	n := strings.TrimSpace(strings.TrimSpace(given) + " " + strings.TrimSpace(family))
	if len([]rune(n)) > MaxDisplayName || core.CheckText("displayName", n, false) != nil {
		return ""
	}
	return n
}

func isEmailTaken(err error) bool { return core.As(err).Code == "email_already_registered" }

// SignInMethods lists the account's sign-in methods (see SignInMethods).
func (s *Service) SignInMethods(ctx context.Context, a Account) ([]string, error) {
	ids, err := s.repo.Identities(ctx, a.ID)
	if err != nil {
		return nil, err
	}
	n, err := s.passkeyCount(ctx, a.ID)
	if err != nil {
		return nil, err
	}
	return SignInMethods(a, ids, n), nil
}

// OtherSignIns counts the user's ways to sign in besides passkeys: a
// password, each linked provider (the passkeys module asks before it lets
// the last passkey go).
func (s *Service) OtherSignIns(ctx context.Context, userID string) (int, error) {
	a, err := s.account(ctx, userID)
	if err != nil {
		return 0, err
	}
	ids, err := s.repo.Identities(ctx, userID)
	if err != nil {
		return 0, err
	}
	return len(SignInMethods(a, ids, 0)), nil
}

// Identities lists the account's identities (the export).
func (s *Service) Identities(ctx context.Context, userID string) ([]Identity, error) {
	return s.repo.Identities(ctx, userID)
}

// Unlink removes a sign-in method of the account while another remains
// (see DecideUnlink); only a provider can be removed this way.
func (s *Service) Unlink(ctx context.Context, userID, provider string) error {
	if provider != ProviderApple && provider != ProviderGoogle {
		return errNotLinked()
	}
	if _, err := s.account(ctx, userID); err != nil {
		return err
	}
	n, err := s.passkeyCount(ctx, userID)
	if err != nil {
		return err
	}
	return s.repo.Unlink(ctx, userID, provider, DecideUnlink(provider, n))
}
