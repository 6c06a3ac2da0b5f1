package changes

import (
	"context"
	"time"

	"tandem/core"
)

// Settings configure the feed.
type Settings struct {
	Retention time.Duration // TANDEM_CHANGES_RETENTION; 0: DefaultRetention
}

// Service reads the feed and purges it.
type Service struct {
	repo      Repository
	clock     core.Clock
	retention time.Duration
}

// NewService is a plain constructor, usable without fx.
func NewService(repo Repository, settings Settings, clock core.Clock) *Service {
	r := settings.Retention
	if r <= 0 {
		r = DefaultRetention
	}
	return &Service{repo: repo, clock: clock, retention: r}
}

// Feed is one answer of the feed: the changes after the cursor asked for,
// the cursor to ask with next, and whether more are waiting already.
type Feed struct {
	Changes []core.Change
	Cursor  string
	HasMore bool
}

// Since reads userID's changes after since, at most limit (1 to MaxLimit;
// 0: DefaultLimit), collapsed per record. Without since it answers none
// and the current cursor: the app refetches once and goes on from there.
// A cursor of another user, or older than the retention, is 410
// cursor_expired: changes it would need may be purged (refetch).
func (s *Service) Since(ctx context.Context, userID, since string, limit int) (Feed, error) {
	if limit == 0 {
		limit = DefaultLimit
	}
	if limit < 1 || limit > MaxLimit {
		return Feed{}, core.BadLimit(MaxLimit)
	}
	now := s.clock.Now()
	if since == "" {
		seq, err := s.repo.Last(ctx, userID)
		if err != nil {
			return Feed{}, err
		}
		return Feed{Changes: []core.Change{}, Cursor: NewCursor(userID, seq, now).String()}, nil
	}
	c, err := s.Resume(userID, since)
	if err != nil {
		return Feed{}, err
	}
	cs, err := s.repo.Since(ctx, userID, c.Seq, limit+1)
	if err != nil {
		return Feed{}, err
	}
	more := len(cs) > limit
	if more {
		cs = cs[:limit]
	}
	next := NewCursor(userID, c.Seq, now)
	if len(cs) > 0 {
		next.Seq = cs[len(cs)-1].Seq
	}
	if more { // what follows is no older than the last change read
		next.At = cs[len(cs)-1].At
	}
	return Feed{Changes: Collapse(cs), Cursor: next.String(), HasMore: more}, nil
}

// Resume checks a cursor (the feed's, or a live stream's Last-Event-ID) for
// userID: 400 when it is not one the server made, 410 cursor_expired when
// it is another user's or past the retention.
func (s *Service) Resume(userID, cursor string) (Cursor, error) {
	c, err := ParseCursor(cursor)
	if err != nil {
		return Cursor{}, err
	}
	if c.User != userTag(userID) || c.At.Before(s.clock.Now().Add(-s.retention)) {
		return Cursor{}, errExpired()
	}
	return c, nil
}

func errExpired() error {
	return core.Gone("cursor_expired", "changes.cursorHasExpiredRefetchStart", "this cursor has expired; refetch and start again from a new cursor")
}

// Purge deletes the changes past the retention (the job runner's).
func (s *Service) Purge(ctx context.Context) (int, error) {
	return s.repo.Purge(ctx, s.clock.Now().Add(-s.retention))
}

// Section, ExportUser and PurgeUser make the feed a core.UserData owner:
// an account's deletion deletes its feed. The feed holds copies of what
// the other sections export, so it exports nothing of its own.
func (s *Service) Section() string { return "changes" }

// ExportUser exports nothing (nil: no section).
func (s *Service) ExportUser(context.Context, string) (any, error) { return nil, nil }

// PurgeUser deletes the user's changes and feed head.
func (s *Service) PurgeUser(ctx context.Context, userID string) error {
	return s.repo.DeleteUser(ctx, userID)
}

// Listener records the changes a store without transactions did not
// (core.ChangesCommitted, after the write committed).
func (s *Service) Listener() core.Listener {
	return core.Listener{Name: "change feed", Handle: func(ctx context.Context, e core.Event) error {
		cc, ok := e.(core.ChangesCommitted)
		if !ok {
			return nil
		}
		return s.repo.Append(ctx, cc.Changes)
	}}
}
