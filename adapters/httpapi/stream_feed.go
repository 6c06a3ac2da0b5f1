// This file is how the live stream follows the durable change feed (issue
// 47): every stream writes the changes of its user's feed, in commit order,
// as `change` events whose id is the feed cursor after the change; every
// other event goes out with the cursor of the changes written before it.
// So every id is a feed cursor, and a Last-Event-ID resumes from the feed
// (the changes after it, then live) on any process, after any gap: a
// restart, a bus outage, days offline. The feed is read when the stream
// opens, again before each event the bus brings for the user (a write's
// events are published after its commit, so its changes are in the feed by
// then), and at once after a bus gap. The other events are live news: the
// feed's changes are the record an app resumes from.

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
// the change the Last-Event-ID names, or the feed's current end. reset is
// true for an id the feed does not serve to this user (410 cursor_expired
// on GET .../changes: another user's, past the retention, or no cursor of
// the feed at all, as the event ids of an earlier release).
func (h *Streams) position(ctx context.Context, s *stream, lastID string) (reset bool, err error) {
	if lastID != "" {
		c, err := h.feed.Resume(s.user, lastID)
		switch {
		case err == nil:
			s.after, s.at = c.Seq, c.At
			return false, nil
		case !core.IsKind(err, core.KindGone) && !core.IsKind(err, core.KindInvalid):
			return false, err
		}
		reset = true
	}
	s.at = h.clock.Now()
	s.after, err = h.feed.Head(ctx, s.user)
	return reset, err
}

// cursor is the feed cursor after what s wrote: the id of its next event.
func (s *stream) cursor() string { return changes.NewCursor(s.user, s.after, s.at).String() }

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
		readAt := h.clock.Now()
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
			s.after, s.at = c.Seq, c.At
		}
		if len(cs) < followPage {
			s.at = readAt // caught up: whatever follows is younger than this read
			return
		}
		if w.flush() != nil {
			return
		}
	}
}
