package core

import "context"

// Settings stores values every process of a deployment shares (the
// console's generated secret), implemented over the database.
type Settings interface {
	// Ensure stores value under name unless a value is stored already, and
	// returns the stored one: processes racing on an empty store agree.
	Ensure(ctx context.Context, name, value string) (string, error)
}
