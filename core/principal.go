package core

import (
	"context"
	"time"
)

// Principal is the authenticated caller, put in the request context by the
// auth middleware.
type Principal struct {
	UserID string
	Email  string
	Admin  bool
	// ExpiresAt is when the caller's token stops being valid (zero when the
	// principal comes from no token): a long request, the live stream, ends
	// there rather than outliving it.
	ExpiresAt time.Time
	// SignedInAt is when the caller's token was made by a sign-in (zero
	// without one): adding a way in to the account needs a recent one.
	SignedInAt time.Time
}

type principalKey struct{}

func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the caller, ok false on unauthenticated routes.
func PrincipalFrom(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}

// ReauthWindow is how long after a sign-in a token may add a way in to its
// account (a passkey, a first password): a stolen token, older than that,
// cannot plant one.
const ReauthWindow = 5 * time.Minute

// RequireRecentSignIn is 403 reauthentication_required unless the token
// was made by a sign-in (signedInAt) within ReauthWindow of now.
func RequireRecentSignIn(signedInAt, now time.Time) error {
	if signedInAt.IsZero() || now.Sub(signedInAt) > ReauthWindow || signedInAt.After(now.Add(time.Minute)) {
		return Forbidden("reauthentication_required", "core.signAgainAddWayAccount", "sign in again to add a way in to your account")
	}
	return nil
}
