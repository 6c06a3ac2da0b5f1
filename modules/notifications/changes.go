package notifications

import (
	"context"
	"strings"

	"tandem/core"
)

// The feed's notifications (issue 47): each write of an inbox entry (a
// notification saved, an activity entry counted, one or all marked read)
// puts the entry, to its owner only (only the recipient reads an inbox),
// as GET .../notifications lists it: written in the owner's locale at the
// write.

// add stores n with its feed's put.
func (s *Service) add(ctx context.Context, n Notification) error {
	locale, err := s.localeOf(ctx, n.UserID)
	if err != nil {
		return err
	}
	shown := n
	s.write(&shown, locale)
	put := []core.Change{core.Put(n.UserID, core.ChangeNotification, n.ID, shown)}
	return core.WriteWithChanges(ctx, s.bus, put, func(ctx context.Context) error { return s.repo.AddNotification(ctx, n) })
}

// MarkRead marks one of the user's notifications read; 404 not_found for an
// unknown id or another user's.
func (s *Service) MarkRead(ctx context.Context, userID, notificationID string) error {
	if strings.TrimSpace(notificationID) == "" {
		return core.Required("notificationId")
	}
	locale, err := s.localeOf(ctx, userID)
	if err != nil {
		return err
	}
	var made Notification
	put := []core.Change{core.Put(userID, core.ChangeNotification, notificationID, func() any {
		s.write(&made, locale)
		return made
	})}
	err = core.WriteWithChanges(ctx, s.bus, put, func(ctx context.Context) error {
		return s.repo.MarkRead(ctx, userID, notificationID, func(n Notification) { made = n })
	})
	if core.IsKind(err, core.KindNotFound) {
		return errNotificationNotFound()
	}
	return err
}

// MarkAllRead marks every unread notification of the user read and returns
// how many there were.
func (s *Service) MarkAllRead(ctx context.Context, userID string) (int, error) {
	puts, err := s.markedChanges(ctx, userID)
	if err != nil {
		return 0, err
	}
	var n int
	err = core.WriteWithChanges(ctx, s.bus, puts, func(ctx context.Context) (err error) {
		n, err = s.repo.MarkAllRead(ctx, userID)
		return err
	})
	return n, err
}

// markedChanges are the puts of a mark-all-read: one per notification it
// marks (every unread one, enumerated before the write, read as they will
// be), so the feed never holds an entry unread that the list shows read.
// One arriving while it runs may be marked with no put of its own: the
// race of docs/api.md "Sync".
func (s *Service) markedChanges(ctx context.Context, userID string) ([]core.Change, error) {
	return core.EveryPage(func(p core.Page) ([]Notification, string, error) {
		return s.List(ctx, userID, true, p)
	}, func(n Notification) core.Change {
		n.Read = true
		return core.Put(userID, core.ChangeNotification, n.ID, n)
	})
}
