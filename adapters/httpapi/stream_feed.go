// This file is how the live stream follows the durable change feed (issue
// 47): every stream writes the changes of its user's feed, in commit order,
// as `change` events whose id is the feed cursor after the change. A
// Last-Event-ID that is a feed cursor resumes from the feed (the changes
// after it, then live) on any process, after any gap: a restart, a bus
// outage, days offline. The feed is read when the stream opens and again
// before each event the bus brings for the user (a write's events are
// published after its commit, so its changes are in the feed by then).

package httpapi

import (
	"context"
	"encoding/json"

	"go.uber.org/zap"

	"tandem/core"
	"tandem/modules/changes"
)

// liveChange is the event type of a feed change on the stream; its data is
// a Change of GET .../changes, its id the cursor after it.
const liveChange = "change"

// followPage is how many changes one read of the feed takes.
const followPage = changes.MaxLimit

// position is where s starts following the feed, read after attach (so a
// change committed after this read reaches s as a bus event first): after
// the change a feed cursor names, or the feed's current end. reset is true
// for a cursor the feed no longer serves to this user (410 cursor_expired
// on GET .../changes: another user's, or past the retention).
func (h *Streams) position(ctx context.Context, s *stream, cursor string) (reset bool, err error) {
	if cursor != "" {
		c, err := h.feed.Resume(s.user, cursor)
		switch {
		case err == nil:
			s.after = c.Seq
			return false, nil
		case !core.IsKind(err, core.KindGone):
			return false, err
		}
		reset = true
	}
	s.after, err = h.feed.Head(ctx, s.user)
	return reset, err
}

// isFeedCursor says whether a Last-Event-ID is one of the feed's cursors
// (the others are the ids of events kept in this process's replay buffer).
func isFeedCursor(id string) bool {
	_, err := changes.ParseCursor(id)
	return id != "" && err == nil
}

// follow writes the changes of s's feed after s.after, page by page. A read
// that fails is logged and tried again before the next event: what was not
// written stays after s.after, so nothing is skipped (at least once).
func (h *Streams) follow(w *sseWriter, s *stream) {
	for {
		select {
		case <-s.done:
			return
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), recheckTimeout)
		cs, err := h.feed.Tail(ctx, s.user, s.after, followPage)
		cancel()
		if err != nil {
			h.log.Warn("live: change feed not read; tried again before the next event", zap.Error(err))
			return
		}
		for _, c := range cs {
			data, err := json.Marshal(toChangeJSON(c))
			if err != nil {
				h.log.Error("live: change not encoded", zap.Error(err))
				return
			}
			w.event(liveEvent{ID: changes.CursorOf(s.user, c), Type: liveChange, Data: data})
			s.after = c.Seq
		}
		if len(cs) < followPage || w.flush() != nil {
			return
		}
	}
}
