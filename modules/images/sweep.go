package images

import (
	"context"
	"sync"
	"time"

	"tandem/core"
)

// Sweeper removes the files a crash left behind: an upload stores its files
// before it inserts their rows, so a process killed in between leaves files
// that no image holds (and thumbnails whose deletion failed outlive theirs). A file is removed only when two sweeps at least Grace
// apart found it without a row, so an upload in flight (its row a moment
// away) is never touched, and only files whose key is an image key.
// Temporary files of cut uploads are the store's own affair (TempSweeper).
// SweepPage is how many files the sweep checks in one read.
const SweepPage = 500

type Sweeper struct {
	repo  Repository
	blobs Blobs
	clock core.Clock
	grace time.Duration

	mu   sync.Mutex
	seen map[string]time.Time // orphan key -> when a sweep first found it
}

// fileOf is the uploaded file whose image holds key: key itself, or the
// file a thumbnail was made from.
func fileOf(key string) (string, bool) {
	if original, _, ok := ParseThumbKey(key); ok {
		return original, true
	}
	_, _, ok := ParseKey(key)
	return key, ok
}

// TempSweeper is a blob store that keeps temporary files of unfinished
// writes (the disk store): it removes those older than olderThan.
type TempSweeper interface {
	SweepTemp(ctx context.Context, olderThan time.Duration) (int, error)
}

func NewSweeper(repo Repository, blobs Blobs, clock core.Clock, grace time.Duration) *Sweeper {
	return &Sweeper{repo: repo, blobs: blobs, clock: clock, grace: grace, seen: map[string]time.Time{}}
}

// Sweep removes the files found without an image row by an earlier sweep at
// least Grace ago, and the store's stale temporary files; it returns how
// many it removed.
func (s *Sweeper) Sweep(ctx context.Context) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	seen := map[string]time.Time{}
	removed := 0
	// The files are checked a page at a time: one read of the image rows
	// per SweepPage files, not one per file (issue 36: 400,000 image
	// files at 100,000 couples).
	var page []string // file keys, then their holders' keys
	check := func() error {
		if len(page) == 0 {
			return nil
		}
		holders := make([]string, len(page))
		for i, key := range page {
			holders[i], _ = fileOf(key)
		}
		held, err := s.repo.Held(ctx, holders)
		if err != nil {
			return err
		}
		for i, key := range page {
			if held[holders[i]] {
				continue
			}
			first, ok := s.seen[key]
			if !ok {
				first = now
			}
			if now.Sub(first) < s.grace || !ok {
				seen[key] = first
				continue
			}
			if err := s.blobs.Delete(ctx, key); err != nil {
				return err
			}
			removed++
		}
		page = page[:0]
		return nil
	}
	err := s.blobs.Walk(ctx, "", func(key string, _ int64) error {
		if _, ok := fileOf(key); !ok {
			return nil
		}
		page = append(page, key)
		if len(page) < SweepPage {
			return nil
		}
		return check()
	})
	if err == nil {
		err = check()
	}
	s.seen = seen
	if err != nil {
		return removed, err
	}
	if ts, ok := s.blobs.(TempSweeper); ok {
		n, err := ts.SweepTemp(ctx, s.grace)
		return removed + n, err
	}
	return removed, nil
}
