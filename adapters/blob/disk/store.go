// Package disk keeps blobs as files under one directory (TANDEM_BLOBS=file:DIR).
package disk

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"tandem/core"
	"tandem/modules/images"
)

var _ images.Blobs = (*Store)(nil)

const (
	fileMode = 0o640
	dirMode  = 0o750
	// tempPrefix starts with a dot, which no key segment may: a temporary
	// file can never be opened as a blob.
	tempPrefix = ".tmp-"
)

// Store maps a key to DIR/<key>. Keys pass images.CheckBlobKey, so they
// cannot leave DIR; writes go to a temporary file in the target directory,
// synced, then renamed over the target, so a reader sees the whole file or
// none of it.
type Store struct{ dir string }

// New makes dir if needed and checks that it is a writable directory.
func New(dir string) (*Store, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("disk blobs: %w", err)
	}
	if err := mkdirs(abs); err != nil {
		return nil, fmt.Errorf("disk blobs: %w", err)
	}
	probe, err := os.CreateTemp(abs, tempPrefix+"probe-*")
	if err != nil {
		return nil, fmt.Errorf("disk blobs: %s is not writable: %w", abs, err)
	}
	probe.Close()
	os.Remove(probe.Name())
	return &Store{dir: abs}, nil
}

// mkdirs is os.MkdirAll with each directory it makes dirMode exactly: a
// umask narrows Mkdir's mode (0077 would make them 0700, and the group that
// may read the files could not reach them). Directories that exist are
// left as they are.
func mkdirs(dir string) error {
	err := os.Mkdir(dir, dirMode)
	switch {
	case err == nil:
		return os.Chmod(dir, dirMode)
	case errors.Is(err, fs.ErrExist):
		return nil // a file there fails the write that follows, as MkdirAll would
	case errors.Is(err, fs.ErrNotExist) && filepath.Dir(dir) != dir:
		if err := mkdirs(filepath.Dir(dir)); err != nil {
			return err
		}
		return mkdirs(dir)
	}
	return err
}

// path maps a checked key (or prefix folder) to its file under the root.
func (s *Store) path(key string) (string, error) {
	if err := images.CheckBlobKey(key); err != nil {
		return "", err
	}
	p := filepath.Join(s.dir, filepath.FromSlash(key))
	if !strings.HasPrefix(p, s.dir+string(filepath.Separator)) { // belt and braces
		return "", core.Invalid("invalid_request", "disk.notValidFileKey", "not a valid file key")
	}
	return p, nil
}

func (s *Store) Put(_ context.Context, key, _ string, r io.Reader, size int64) (err error) {
	p, err := s.path(key)
	if err != nil {
		return err
	}
	if err := mkdirs(filepath.Dir(p)); err != nil {
		return fmt.Errorf("disk blobs: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), tempPrefix+"*")
	if err != nil {
		return fmt.Errorf("disk blobs: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	n, err := io.Copy(tmp, io.LimitReader(r, size))
	if err != nil {
		return full(fmt.Errorf("disk blobs: write %s: %w", key, err))
	}
	if n != size {
		return fmt.Errorf("disk blobs: %s: got %d bytes, want %d", key, n, size)
	}
	if err = tmp.Chmod(fileMode); err != nil {
		return fmt.Errorf("disk blobs: %w", err)
	}
	if err = tmp.Sync(); err != nil {
		return full(fmt.Errorf("disk blobs: %w", err))
	}
	if err = tmp.Close(); err != nil {
		return full(fmt.Errorf("disk blobs: %w", err))
	}
	if err = os.Rename(tmp.Name(), p); err != nil {
		return fmt.Errorf("disk blobs: %w", err)
	}
	return nil
}

// full turns "no space left" (or over quota) into a 507 the client can
// understand; the temporary file is removed by Put's deferred clean-up.
func full(err error) error {
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return core.InsufficientStorage("insufficient_storage", "disk.noRoomLeftStoreFile", "no room left to store the file; try again later").Wrap(err)
	}
	return err
}

func (s *Store) Open(_ context.Context, key string) (io.ReadCloser, images.BlobInfo, error) {
	p, err := s.path(key)
	if err != nil {
		return nil, images.BlobInfo{}, err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, images.BlobInfo{}, core.NotFound("not_found", "s3.noSuchFile", "no such file")
	}
	if err != nil {
		return nil, images.BlobInfo{}, fmt.Errorf("disk blobs: %w", err)
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, images.BlobInfo{}, core.NotFound("not_found", "s3.noSuchFile", "no such file")
	}
	return f, images.BlobInfo{Size: st.Size(), ContentType: contentType(key)}, nil
}

// contentType is told by the key's extension: the store keeps no metadata.
func contentType(key string) string {
	if t := mime.TypeByExtension(filepath.Ext(key)); t != "" {
		return t
	}
	return "application/octet-stream"
}

func (s *Store) Delete(_ context.Context, key string) error {
	p, err := s.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("disk blobs: %w", err)
	}
	return nil
}

func (s *Store) DeletePrefix(_ context.Context, prefix string) error {
	if err := images.CheckBlobPrefix(prefix); err != nil {
		return err
	}
	p, err := s.path(strings.TrimSuffix(prefix, "/"))
	if err != nil {
		return err
	}
	if err := os.RemoveAll(p); err != nil {
		return fmt.Errorf("disk blobs: %w", err)
	}
	return nil
}

// Walk walks the folder of prefix (the root for ""), skipping temporary
// files and anything that is no valid key; a folder removed meanwhile (a
// DeletePrefix) is passed over.
func (s *Store) Walk(ctx context.Context, prefix string, fn func(key string, size int64) error) error {
	root := s.dir
	if prefix != "" {
		if err := images.CheckBlobPrefix(prefix); err != nil {
			return err
		}
		p, err := s.path(strings.TrimSuffix(prefix, "/"))
		if err != nil {
			return err
		}
		root = p
	}
	var fnErr error
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if p != root && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(s.dir, p)
		if err != nil {
			return err
		}
		key := filepath.ToSlash(rel)
		if !strings.HasPrefix(key, prefix) || images.CheckBlobKey(key) != nil {
			return nil
		}
		info, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if fnErr = fn(key, info.Size()); fnErr != nil {
			return fnErr
		}
		return nil
	})
	if fnErr != nil {
		return fnErr
	}
	if err != nil {
		return fmt.Errorf("disk blobs: walk: %w", err)
	}
	return nil
}

var _ images.TempSweeper = (*Store)(nil)

// SweepTemp removes the temporary files of writes that never finished (a
// process killed mid-upload) once they are older than olderThan: a live
// upload's temporary file is younger than any sensible grace.
func (s *Store) SweepTemp(ctx context.Context, olderThan time.Duration) (int, error) {
	removed := 0
	cutoff := time.Now().Add(-olderThan)
	err := filepath.WalkDir(s.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if !d.Type().IsRegular() || !strings.HasPrefix(d.Name(), tempPrefix) {
			return nil
		}
		info, err := d.Info()
		if err != nil || !info.ModTime().Before(cutoff) {
			return nil // gone meanwhile, or still young
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		removed++
		return nil
	})
	return removed, err
}
