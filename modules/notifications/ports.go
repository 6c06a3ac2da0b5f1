package notifications

import (
	"context"
	"time"

	"tandem/core"
)

//go:generate go run go.uber.org/mock/mockgen@v0.6.0 -typed -destination=mock_ports_test.go -package=notifications_test . Repository,Pusher

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
	// AddActivity loads what the inbox holds for a's (UserID, From, Kind),
	// locked, runs collect on it (the module's Collect) and stores what
	// collect returns, in one transaction: the entry inserted when its id is
	// new, else its title, message and time updated; the count and the
	// last push recorded. Concurrent calls for the same three run one
	// after the other. It returns what it stored. collect may run more
	// than once (a transaction that lost a deadlock runs again).
	AddActivity(ctx context.Context, a Activity, collect func(Collected) Collected) (Collected, error)
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
	// made (when not nil) is called in the transaction with the
	// notification as stored (the feed's put).
	MarkRead(ctx context.Context, userID, id string, made func(Notification)) error
	// MarkAllRead marks every unread notification of the user read and
	// returns how many it marked.
	MarkAllRead(ctx context.Context, userID string) (int, error)

	// RegisterDevice reads the DeviceState of d's token and user, holding
	// the token against concurrent registrations, runs decide on it and
	// writes the change it returns (DecideRegister), in one transaction.
	// It returns the stored device. decide may run more than once (a
	// transaction that lost a deadlock runs again), so it must not have side
	// effects.
	RegisterDevice(ctx context.Context, d Device, decide func(DeviceState) DeviceChange) (Device, error)
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

// Providers are the push providers a device may name, as the push adapters
// know them (bootstrap binds them): the module knows no provider by name.
// Both return core.Invalid with the text to show.
type Providers interface {
	// CheckProvider refuses a provider name that is empty or unknown.
	CheckProvider(name string) error
	// CheckToken refuses a token (already a ValidateToken one) that the
	// named provider never accepts.
	CheckToken(name, token string) error
}

// TicketRepository keeps the tickets of accepted pushes until their
// receipts are read (Receipts). Every method is one statement or
// transaction, safe beside the same calls from other processes.
type TicketRepository interface {
	// AddTickets stores tickets, each first checked a receipt delay after
	// its SentAt; an id already stored is left as it is.
	AddTickets(ctx context.Context, ts []Ticket) error
	// ClaimTickets takes up to limit tickets last checked (or, never
	// checked, sent) at or before due, the longest waiting first, and marks
	// them checked at now, so that a concurrent claim takes others and
	// what is not deleted comes back a delay later. It returns the tickets
	// this call took.
	ClaimTickets(ctx context.Context, due, now time.Time, limit int) ([]Ticket, error)
	// DeleteTickets forgets tickets; unknown ids are ignored.
	DeleteTickets(ctx context.Context, ids []string) error
}

// ReceiptReader reads the provider's receipts of tickets. An id missing
// from the answer has no receipt yet; an error means none could be read (the provider is unreachable or refused).
type ReceiptReader interface {
	Receipts(ctx context.Context, ids []string) (map[string]Receipt, error)
}

// ReceiptLog hears what became of each ticket (bootstrap logs it): its
// receipt, or none before TicketMaxAge.
type ReceiptLog interface {
	Receipt(ctx context.Context, t Ticket, r Receipt)
	Unanswered(ctx context.Context, t Ticket)
}

// DailyReminderRepository keeps each user's next daily reminder instant (read
// in due order through an index, so the job never scans every user) and
// the local dates a user was reminded of (one row per user and date: the
// claim that makes a reminder go out once across processes).
type DailyReminderRepository interface {
	// ScheduleReminder makes the user's reminder due at at (insert or
	// replace).
	ScheduleReminder(ctx context.Context, userID string, at time.Time) error
	// DueReminders returns up to limit reminders due at or before now,
	// earliest first.
	DueReminders(ctx context.Context, now time.Time, limit int) ([]DueReminder, error)
	// MoveReminder sets the user's reminder to to if it is still due at
	// from, and reports whether it did (else another process or a newer
	// schedule got there first).
	MoveReminder(ctx context.Context, userID string, from, to time.Time) (bool, error)
	// ClearReminder removes the user's reminder if it is still due at at
	// (an unpaired user gets none until paired again).
	ClearReminder(ctx context.Context, userID string, at time.Time) (bool, error)
	// ClaimReminderDay records that the user is reminded of their local
	// date day, at at; false when that is already recorded, by any process.
	ClaimReminderDay(ctx context.Context, userID string, day core.Date, at time.Time) (bool, error)
	// PurgeReminderDays forgets the claims of dates before before.
	PurgeReminderDays(ctx context.Context, before core.Date) (int, error)
	// DeleteUserReminders removes the user's reminder and claims; it is
	// idempotent.
	DeleteUserReminders(ctx context.Context, userID string) error
}

// Users gives a user's profile timezone (accounts.Service), UTC when unset,
// and locale, "en" when unset; core.KindNotFound when there is no such
// account.
type Users interface {
	Location(ctx context.Context, userID string) (*time.Location, error)
	Locale(ctx context.Context, userID string) (string, error)
}

// DailyQuestions tells whether a user answered their couple's daily
// question of a date (questions.Service): paired is false for a user
// without a partner, who has no daily question.
type DailyQuestions interface {
	AnsweredOn(ctx context.Context, userID string, day core.Date) (paired, answered bool, err error)
}
