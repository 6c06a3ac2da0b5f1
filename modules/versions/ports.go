package versions

import "context"

// Repository stores one update policy per platform. Every method is one
// statement: the check is a single read by primary key.
type Repository interface {
	// Get returns the platform's policy; core.KindNotFound when it has none.
	Get(ctx context.Context, platform Platform) (Policy, error)
	// Put creates the platform's policy or replaces every field of it.
	Put(ctx context.Context, p Policy) error
}
