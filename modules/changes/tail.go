package changes

import (
	"context"

	"tandem/core"
)

// The live stream follows the feed (issue 47): its `change` events are the
// feed's changes, each with the cursor after it as its event id, so that a
// Last-Event-ID resumes from the feed on any process after any gap.

// Head is the Seq of userID's newest change (0 when none): where a stream
// opened without a cursor starts following the feed.
func (s *Service) Head(ctx context.Context, userID string) (int64, error) {
	return s.repo.Last(ctx, userID)
}

// Tail reads at most limit of userID's changes after seq, in commit order,
// uncollapsed: a stream writes each with its own cursor (CursorOf).
func (s *Service) Tail(ctx context.Context, userID string, seq int64, limit int) ([]core.Change, error) {
	return s.repo.Since(ctx, userID, seq, limit)
}

// CursorOf is the cursor after c in userID's feed: the event id of c on the
// live stream, and a valid since= of GET .../changes.
func CursorOf(userID string, c core.Change) string {
	return NewCursor(userID, c.Seq, c.At).String()
}
