//go:build unix

package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"syscall"

	"go.uber.org/zap"
)

// fileMigrateLock is a goose locker on an flock(2) of a file beside the
// SQLite database: the kernel frees it when the process dies. (SQLite's own
// locks are fcntl locks, which Linux keeps apart from flock.)
type fileMigrateLock struct {
	path string
	log  *zap.Logger
	file *os.File
}

func (l *fileMigrateLock) Lock(ctx context.Context, _ *sql.DB) error {
	f, err := os.OpenFile(l.path, os.O_RDWR|os.O_CREATE, sqliteFileMode)
	if err != nil {
		return fmt.Errorf("sqlstore: migration lock: %w", err)
	}
	err = waitTurn(ctx, l.log, func() (bool, error) {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return false, nil
		}
		return err == nil, err
	})
	if err != nil {
		f.Close()
		return err
	}
	l.file = f
	return nil
}

func (l *fileMigrateLock) Unlock(context.Context, *sql.DB) error {
	if l.file == nil {
		return nil
	}
	defer func() { l.file = nil }()
	return l.file.Close() // closing the last descriptor releases the flock
}
