//go:build unix

package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"

	"go.uber.org/zap"
)

// lockFile takes an flock(2) of path, a file beside the SQLite database:
// the kernel frees it when the process dies. (SQLite's own locks are fcntl
// locks, which Linux keeps apart from flock.)
func lockFile(ctx context.Context, path string, log *zap.Logger) (func() error, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, sqliteFileMode)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: migration lock: %w", err)
	}
	err = waitTurn(ctx, log, func() (bool, error) {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return false, nil
		}
		return err == nil, err
	})
	if err != nil {
		f.Close()
		return nil, err
	}
	return f.Close, nil // closing the last descriptor releases the flock
}
