//go:build !unix

package sqlstore

import (
	"context"

	"go.uber.org/zap"
)

// lockFile: without flock(2), SQLite's migrations do not take turns (a
// Tandem on SQLite is one process on one machine).
func lockFile(context.Context, string, *zap.Logger) (func() error, error) {
	return func() error { return nil }, nil
}
