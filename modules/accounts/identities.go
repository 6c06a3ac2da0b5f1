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
	// Client is the audience of ours the token names: the client an
	// authorization code sent beside it was issued to.
	Client string
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
	// AuthorizationCode is Apple's code beside the ID token (optional):
	// redeemed for the grant that account deletion revokes (grants.go).
	AuthorizationCode string
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
	// A take-over's ending of earlier ways in queues the grants of the
	// identities it removes for revocation, but never the grant of the
	// identity it links again: that one is kept (the update's RefreshToken
	// replaces it when set).
	SignIn(ctx context.Context, provider, subject, email string, decide SignInDecision) (SignInUpdate, error)
	// Identities lists the account's identities, oldest first.
	Identities(ctx context.Context, userID string) ([]Identity, error)
	// SpendIDToken records that the ID token whose hash is tokenHash
	// signed in, until expires (the token's own exp; Purge forgets it
	// after): core.KindConflict when it already did.
	SpendIDToken(ctx context.Context, tokenHash string, expires time.Time) error
}

// SignInState is what SignIn loads.
type SignInState struct {
	Identity *Identity // the linked identity, nil when the subject is new
	Linked   *Account  // the identity's account
	ByEmail  *Account  // the account with the claim's e-mail, nil when none
}

// SignInUpdate is what a SignInDecision writes: the account signed in to
// (created first when Create), the identity linked when Link, and, on a
// pending account taken over, every earlier way in ended (the repository
// fills Removed), its password dropped and its e-mail verified.
type SignInUpdate struct {
	Account  Account
	Create   bool
	Link     *Identity
	TakeOver bool
	Removed  Removed
	// RefreshToken, when set, is the sealed grant the identity (provider,
	// subject) keeps from now on. The one it replaces is dropped, not
	// revoked: both belong to the one authorization of this user and app,
	// which revoking either would end.
	RefreshToken string
}

// SignInDecision decides a sign-in on what SignIn loaded.
type SignInDecision func(SignInState) (SignInUpdate, error)

// DecideSignIn is the rule of a sign-in with a valid token, at now. Only
// an e-mail the provider marks verified is ever matched to an address:
//   - a linked subject signs in to its account; to one whose e-mail is not
//     proven yet (linked before this rule) only by proving it now, a
//     take-over;
//   - a new subject whose e-mail the provider verified joins the verified
//     account with it (a way in added: the owner is told), or takes over
//     the pending one: every earlier way in ends (its password, typed by
//     whoever signed up, too) and the e-mail becomes verified;
//   - a new subject with a verified e-mail no account holds gets a new,
//     verified account with id newID, without a password;
//   - a new subject whose e-mail the provider did not verify is refused
//     (403 email_not_verified), one with none too (400 email_required): it
//     is never matched to, made into or held for an address, so it never
//     carries an administrator's address nor blocks the address's owner;
//   - a blocked account is signed in to by none of these (403
//     account_blocked, DecideSession), and nothing is written.
func DecideSignIn(c IdentityClaim, newID string, now time.Time) SignInDecision {
	decide := decideSignIn(c, newID, now)
	return func(st SignInState) (SignInUpdate, error) {
		u, err := decide(st)
		if err != nil {
			return SignInUpdate{}, err
		}
		return u, DecideSession(u.Account)
	}
}

func decideSignIn(c IdentityClaim, newID string, now time.Time) SignInDecision {
	return func(st SignInState) (SignInUpdate, error) {
		if st.Identity != nil {
			return decideLinked(c, st, now)
		}
		if c.Email == "" {
			return SignInUpdate{}, core.Invalid("email_required", "accounts.iDTokenCarriesNoMail", "the ID token carries no e-mail; the first sign-in needs one")
		}
		if !c.EmailVerified {
			return SignInUpdate{}, errClaimNotVerified()
		}
		link := &Identity{Provider: c.Provider, Subject: c.Subject, Email: c.Email, CreatedAt: now}
		if st.ByEmail != nil {
			a := *st.ByEmail
			link.UserID = a.ID
			if a.Verified {
				return SignInUpdate{Account: a, Link: link}, nil
			}
			return takeOver(a, link, now), nil
		}
		a := Account{ID: newID, Email: c.Email, Verified: true, Profile: Profile{DisplayName: c.Name, Locale: c.Locale},
			CreatedAt: now, UpdatedAt: now}
		link.UserID = a.ID
		return SignInUpdate{Account: a, Create: true, Link: link}, nil
	}
}

// decideLinked signs a linked subject in to its account; an account not
// proven yet only when this claim proves its e-mail (a take-over).
func decideLinked(c IdentityClaim, st SignInState, now time.Time) (SignInUpdate, error) {
	if st.Linked == nil {
		return SignInUpdate{}, core.Internal(errIdentityOrphan)
	}
	a := *st.Linked
	if a.Verified {
		return SignInUpdate{Account: a}, nil
	}
	if !c.EmailVerified || c.Email != a.Email {
		return SignInUpdate{}, errClaimNotVerified()
	}
	link := *st.Identity
	return takeOver(a, &link, now), nil
}

// takeOver proves a pending account's e-mail by a provider's word: its
// password goes, it becomes verified, and every earlier way in ends before
// link is stored.
func takeOver(a Account, link *Identity, now time.Time) SignInUpdate {
	a.Verified, a.PasswordHash, a.UpdatedAt = true, "", now
	return SignInUpdate{Account: a, Link: link, TakeOver: true}
}

func errClaimNotVerified() error {
	return core.Forbidden("email_not_verified",
		"accounts.providerHasNotVerifiedMail", "the provider has not verified this e-mail: sign up with it, or verify it with the provider first")
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
	return core.NotFound("not_found", "accounts.signMethodNotLinkedAccount", "this sign-in method is not linked to the account")
}

// SignIn signs in with a provider's ID token (see DecideSignIn): a new
// session for the account, and whether the account was created. Each
// attempt is reserved per client IP before the token is checked, and given
// back when it signs in, like a login. Apple's authorization code, when
// sent, is redeemed after the token is verified and before it is spent
// (redeem), and its grant is written with the sign-in or dropped with it.
func (s *Service) SignIn(ctx context.Context, r SignInRequest, cl Client) (userID, token string, created bool, err error) {
	if s.idTokens == nil {
		return "", "", false, core.Unauthorized("invalid_token", "signin.iDTokenNotValid", "the ID token is not valid")
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
	grant, err := s.redeem(ctx, c, r.AuthorizationCode)
	if err != nil {
		return "", "", false, err
	}
	if err := s.spendIDToken(ctx, c); err != nil {
		return "", "", false, err
	}
	var u SignInUpdate
	for try := 0; ; try++ {
		u, err = s.signIn(ctx, c, withGrant(DecideSignIn(c, s.ids.New(), s.clock.Now()), grant))
		if core.IsKind(err, core.KindConflict) && try == 0 {
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
	s.afterSignIn(ctx, u, c.Provider)
	return u.Account.ID, plain, u.Create, nil
}

// signIn writes the sign-in decide decides (Repository.SignIn) with its
// feed's changes (linkChanges).
func (s *Service) signIn(ctx context.Context, c IdentityClaim, decide SignInDecision) (SignInUpdate, error) {
	var made SignInUpdate // the update decide made in the write
	cs, err := s.linkChanges(ctx, c, func() SignInUpdate { return made })
	if err != nil {
		return SignInUpdate{}, err
	}
	var u SignInUpdate
	err = core.WriteWithChanges(ctx, s.bus, cs, func(ctx context.Context) (err error) {
		u, err = s.repo.SignIn(ctx, c.Provider, c.Subject, c.Email, func(st SignInState) (SignInUpdate, error) {
			var err error
			made, err = decide(st)
			return made, err
		})
		return err
	})
	return u, err
}

// afterSignIn tells the owner what a committed sign-in changed: a take-over
// ended every earlier way in; a provider joined to a proven account is a
// way in added. The sign-in stands whatever this meets (logged).
func (s *Service) afterSignIn(ctx context.Context, u SignInUpdate, provider string) {
	var err error
	switch {
	case u.TakeOver:
		err = s.afterEnding(ctx, u.Account, u.Removed, EndTakeOver, true)
	case u.Link != nil && !u.Create:
		err = s.WayInAdded(ctx, u.Account.ID, provider)
	}
	s.logFailure(ctx, "after sign-in", err)
}

// spendIDToken lets an ID token sign in once: a replayed one (a token
// seen in a log, a proxy, a device) is 401 invalid_token, as any fault of
// the token is. A token that is refused after this line is spent too: the
// app asks the provider for a new one.
func (s *Service) spendIDToken(ctx context.Context, c IdentityClaim) error {
	if c.TokenHash == "" {
		return core.Internal(errors.New("accounts: an ID token claim without its hash"))
	}
	err := s.repo.SpendIDToken(ctx, c.TokenHash, c.ExpiresAt)
	if core.IsKind(err, core.KindConflict) {
		return core.Unauthorized("invalid_token", "signin.iDTokenNotValid", "the ID token is not valid")
	}
	return err
}

// displayName joins the names Apple's app sends, when they make a valid one.
func displayName(given, family string) string {
	n := strings.TrimSpace(strings.TrimSpace(given) + " " + strings.TrimSpace(family))
	if len([]rune(n)) > MaxDisplayName || core.CheckText("displayName", n, false) != nil {
		return ""
	}
	return n
}

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

// Identities lists the account's identities (the export).
func (s *Service) Identities(ctx context.Context, userID string) ([]Identity, error) {
	return s.repo.Identities(ctx, userID)
}

// Unlink removes a linked provider of the account while another way in
// remains (DecideRemoveWay).
func (s *Service) Unlink(ctx context.Context, userID, provider string) error {
	if provider != ProviderApple && provider != ProviderGoogle {
		return errNotLinked()
	}
	if err := s.removeWay(ctx, userID, WayIn{Provider: provider}); err != nil {
		return err
	}
	s.wakeRevoker() // the identity's grant was queued for revocation with its removal
	return nil
}
