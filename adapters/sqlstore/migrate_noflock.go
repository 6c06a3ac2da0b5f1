//go:build !unix

package sqlstore

import (
	"context"
	"database/sql"

	"go.uber.org/zap"
)

// fileMigrateLock: without flock(2), SQLite's migrations do not take turns
// (a Tandem on SQLite is one process on one machine anyway).
type fileMigrateLock struct {
	path string
	log  *zap.Logger
}

func (l *fileMigrateLock) Lock(context.Context, *sql.DB) error   { return nil }
func (l *fileMigrateLock) Unlock(context.Context, *sql.DB) error { return nil }
