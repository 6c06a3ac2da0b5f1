// Package memblob keeps blobs in memory: the QA profile (TANDEM_BLOBS=memory)
// and the unit-test fake.
package memblob

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"tandem/core"
	"tandem/modules/images"
)

var _ images.Blobs = (*Store)(nil)

type blob struct {
	data        []byte
	contentType string
}

// Store is a map of keys to bytes; it copies on the way in and out.
type Store struct {
	mu    sync.RWMutex
	blobs map[string]blob
}

func New() *Store { return &Store{blobs: map[string]blob{}} }

func (s *Store) Put(_ context.Context, key, contentType string, r io.Reader, size int64) error {
	if err := images.CheckBlobKey(key); err != nil {
		return err
	}
	if size < 0 {
		return fmt.Errorf("memblob: negative size %d", size)
	}
	data, err := io.ReadAll(io.LimitReader(r, size))
	if err != nil {
		return fmt.Errorf("memblob: read %s: %w", key, err)
	}
	if int64(len(data)) != size {
		return fmt.Errorf("memblob: %s: got %d bytes, want %d", key, len(data), size)
	}
	s.mu.Lock()
	s.blobs[key] = blob{data: data, contentType: contentType}
	s.mu.Unlock()
	return nil
}

func (s *Store) Open(_ context.Context, key string) (io.ReadCloser, images.BlobInfo, error) {
	if err := images.CheckBlobKey(key); err != nil {
		return nil, images.BlobInfo{}, err
	}
	s.mu.RLock()
	b, ok := s.blobs[key]
	s.mu.RUnlock()
	if !ok {
		return nil, images.BlobInfo{}, core.NotFound("not_found", "s3.noSuchFile", "no such file")
	}
	return io.NopCloser(bytes.NewReader(bytes.Clone(b.data))),
		images.BlobInfo{Size: int64(len(b.data)), ContentType: b.contentType}, nil
}

func (s *Store) Delete(_ context.Context, key string) error {
	if err := images.CheckBlobKey(key); err != nil {
		return err
	}
	s.mu.Lock()
	delete(s.blobs, key)
	s.mu.Unlock()
	return nil
}

func (s *Store) DeletePrefix(_ context.Context, prefix string) error {
	if err := images.CheckBlobPrefix(prefix); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for key := range s.blobs {
		if strings.HasPrefix(key, prefix) {
			delete(s.blobs, key)
		}
	}
	return nil
}

// Keys lists the stored keys (tests: "nothing was left behind").
func (s *Store) Keys() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]string, 0, len(s.blobs))
	for k := range s.blobs {
		out = append(out, k)
	}
	return out
}

// Walk lists the matching keys under the lock, then calls fn without it (in
// key order), so fn may use the store.
func (s *Store) Walk(ctx context.Context, prefix string, fn func(key string, size int64) error) error {
	if prefix != "" {
		if err := images.CheckBlobPrefix(prefix); err != nil {
			return err
		}
	}
	type entry struct {
		key  string
		size int64
	}
	s.mu.RLock()
	var found []entry
	for k, b := range s.blobs {
		if strings.HasPrefix(k, prefix) {
			found = append(found, entry{k, int64(len(b.data))})
		}
	}
	s.mu.RUnlock()
	slices.SortFunc(found, func(a, b entry) int { return strings.Compare(a.key, b.key) })
	for _, e := range found {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(e.key, e.size); err != nil {
			return err
		}
	}
	return nil
}
