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
	err := s.blobs.Walk(ctx, "", func(key string, _ int64) error {
		holder, ok := fileOf(key)
		if !ok {
			return nil
		}
		if _, err := s.repo.ByKey(ctx, holder); !core.IsKind(err, core.KindNotFound) {
			return err // held by an image (nil), or the database failed
		}
		first, ok := s.seen[key]
		if !ok {
			first = now
		}
		if now.Sub(first) < s.grace || !ok {
			seen[key] = first
			return nil
		}
		if err := s.blobs.Delete(ctx, key); err != nil {
			return err
		}
		removed++
		return nil
	})
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
