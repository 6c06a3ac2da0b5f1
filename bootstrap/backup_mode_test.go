package bootstrap

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestBackupSnapshotIsOwnerOnly: the backup's copy of the SQLite database
// holds what the database does (password hashes, pending codes): 0600 as
// the database, even under umask 0. Not parallel: the umask is the process's.
func TestBackupSnapshotIsOwnerOnly(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	root := t.TempDir()
	vars := map[string]string{"TANDEM_DB": "sqlite:" + filepath.Join(root, "data", "t.db"),
		"TANDEM_BLOBS": "file:" + filepath.Join(root, "blobs"), "TANDEM_LOG_LEVEL": "fatal"}
	ctx := context.Background()
	if err := Run(ctx, []string{"migrate"}, env(vars), io.Discard); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "backup")
	if err := Run(ctx, []string{"backup", dir}, env(vars), io.Discard); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]os.FileMode{filepath.Join(dir, snapshotName): 0o600,
		filepath.Join(root, "data", "t.db"): 0o600, filepath.Join(dir, manifestName): 0o640, dir: 0o750} {
		st, err := os.Stat(file)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != want {
			t.Errorf("%s: %v, want %v", file, st.Mode().Perm(), want)
		}
	}
}
