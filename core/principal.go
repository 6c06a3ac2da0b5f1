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
