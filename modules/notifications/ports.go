package notifications

import (
	"context"
	"time"

	"tandem/core"
)

//go:generate go run go.uber.org/mock/mockgen@v0.6.0 -typed -source=ports.go -destination=mock_ports_test.go -package=notifications_test

// Repository stores settings, the inbox and devices. Every method is one
// transaction.
type Repository interface {
	// Settings returns the user's stored settings; core.KindNotFound when the
	// user never set any.
	Settings(ctx context.Context, userID string) (Settings, error)
	// UpdateSettings applies fn to the stored settings (DefaultSettings when
	// none are stored) and saves the result, all or nothing; an error from fn
	// is returned and nothing is written.
	UpdateSettings(ctx context.Context, userID string, fn func(s *Settings) error) (Settings, error)

	// AddNotification stores n in its user's inbox.
	AddNotification(ctx context.Context, n Notification) error
	// AddActivity records one more a in the user's inbox, in one
	// transaction. The unread entry that collects a's (UserID, From, Kind)
	// counts one more, takes a.Kind.Text of its new count and n.CreatedAt,
	// and keeps its id; when there is none (never one, or it was read or
	// deleted since) n becomes that entry, with a count of 1. push is true
	// when no push for the same (UserID, From, Kind) was reserved in the
	// quiet period before n.CreatedAt, and then n.CreatedAt is recorded as
	// its last push: concurrent calls reserve at most one. It returns the
	// entry as stored.
	AddActivity(ctx context.Context, a Activity, n Notification, quiet time.Duration) (entry Notification, push bool, err error)
	// ListNotifications returns the user's notifications newest first (by
	// CreatedAt, then id), only the unread ones when unreadOnly, one page at
	// a time: page.Size() items after page.Cursor, and the cursor of the next
	// page ("" when this is the last, or when the page is not Paged). A
	// cursor it did not hand out is core.KindInvalid.
	ListNotifications(ctx context.Context, userID string, unreadOnly bool, page core.Page) ([]Notification, string, error)
	// CountUnread counts the user's unread notifications.
	CountUnread(ctx context.Context, userID string) (int, error)
	// MarkRead marks one of the user's notifications read (again is
	// harmless); core.KindNotFound when the user has no notification id.
	MarkRead(ctx context.Context, userID, id string) error
	// MarkAllRead marks every unread notification of the user read and
	// returns how many it marked.
	MarkAllRead(ctx context.Context, userID string) (int, error)

	// RegisterDevice stores d under its token: a new token is a new device;
	// one the same user registered keeps its id and creation time and takes
	// d's platform, provider and UpdatedAt; one another user holds is taken
	// from them and becomes d, a new device with d's id (the old id is
	// never handed to the new owner). Then the user keeps only their keep
	// most recently registered devices. It returns the stored device.
	RegisterDevice(ctx context.Context, d Device, keep int) (Device, error)
	// Devices returns the user's devices, most recently registered first.
	Devices(ctx context.Context, userID string) ([]Device, error)
	// RemoveDevice deletes one of the user's devices; core.KindNotFound when
	// the user has no device id.
	RemoveDevice(ctx context.Context, userID, id string) error
	// RemoveDevices deletes the devices with these ids, whoever owns them
	// (tokens a provider reported dead); unknown ids are ignored.
	RemoveDevices(ctx context.Context, ids []string) error

	// DeleteUser deletes the user's settings, notifications and devices,
	// and the activity they were told of or did; it is idempotent.
	DeleteUser(ctx context.Context, userID string) error
}

// Pusher delivers a push to devices through their providers (TANDEM_PUSH).
// It returns exactly one Delivery per device, in the order of to; it never
// fails as a whole: what went wrong is in each Delivery's Err.
type Pusher interface {
	Push(ctx context.Context, m Message, to []Device) []Delivery
}
