package sqlstore

import (
	"context"
	"reflect"
	"strings"

	sq "github.com/Masterminds/squirrel"
	"github.com/jmoiron/sqlx"

	"tandem/core"
	"tandem/modules/notifications"
)

var _ notifications.Repository = (*NotificationRepo)(nil)

// NotificationRepo stores notification_settings, notifications and
// notification_devices.
type NotificationRepo struct{ db *DB }

func NewNotificationRepo(db *DB) *NotificationRepo { return &NotificationRepo{db: db} }

var (
	settingsColumns = []string{"user_id", "pause_all", "daily_reminders", "mood_updates", "habits_reminder",
		"events_notification", "games_notification", "partner_activity", "system_updates", "resume", "daily_reminder_time",
		"updated_at"}
	notificationColumns = []string{"id", "user_id", "title", "message", "text_key", "text_args", "category", "is_read",
		"created_at"}
	deviceColumns = []string{"id", "user_id", "token", "platform", "provider", "created_at", "updated_at"}
)

type settingsRow struct {
	UserID             string `db:"user_id"`
	PauseAll           bool   `db:"pause_all"`
	DailyReminders     bool   `db:"daily_reminders"`
	MoodUpdates        bool   `db:"mood_updates"`
	HabitsReminder     bool   `db:"habits_reminder"`
	EventsNotification bool   `db:"events_notification"`
	GamesNotification  bool   `db:"games_notification"`
	PartnerActivity    bool   `db:"partner_activity"`
	SystemUpdates      bool   `db:"system_updates"`
	Resume             string `db:"resume"`
	ReminderTime       string `db:"daily_reminder_time"`
	UpdatedAt          int64  `db:"updated_at"`
}

func (r settingsRow) settings() notifications.Settings {
	s := notifications.Settings{UserID: r.UserID, PauseAll: r.PauseAll, UpdatedAt: core.FromMillis(r.UpdatedAt),
		Preferences: notifications.Preferences{DailyReminders: r.DailyReminders, MoodUpdates: r.MoodUpdates,
			HabitsReminder: r.HabitsReminder, EventsNotification: r.EventsNotification,
			GamesNotification: r.GamesNotification, PartnerActivity: r.PartnerActivity, SystemUpdates: r.SystemUpdates}}
	for _, k := range strings.Split(r.Resume, ",") {
		s.Resume.Set(notifications.Setting(k), true) // "" and unknown keys are ignored
	}
	s.ReminderTime = notifications.DefaultReminderTime
	if t, err := core.ParseTimeOfDay(r.ReminderTime); err == nil {
		s.ReminderTime = t
	}
	return s
}

func settingsValues(s notifications.Settings) []any {
	resume := make([]string, 0, len(notifications.Kinds))
	for _, k := range s.Resume.On() {
		resume = append(resume, string(k))
	}
	return []any{s.UserID, s.PauseAll, s.DailyReminders, s.MoodUpdates, s.HabitsReminder, s.EventsNotification,
		s.GamesNotification, s.PartnerActivity, s.SystemUpdates, strings.Join(resume, ","), s.ReminderTime.String(),
		s.UpdatedAt.UnixMilli()}
}

type notificationRow struct {
	ID        string `db:"id"`
	UserID    string `db:"user_id"`
	Title     string `db:"title"`
	Message   string `db:"message"`
	TextKey   string `db:"text_key"`
	TextArgs  string `db:"text_args"`
	Category  string `db:"category"`
	IsRead    bool   `db:"is_read"`
	CreatedAt int64  `db:"created_at"`
}

// notification is the row's; a text whose arguments cannot be read keeps
// the English it was stored with (no key).
func (r notificationRow) notification() notifications.Notification {
	n := notifications.Notification{ID: r.ID, UserID: r.UserID, Title: r.Title, Message: r.Message,
		Category: notifications.Category(r.Category), Read: r.IsRead, CreatedAt: core.FromMillis(r.CreatedAt)}
	if r.TextKey != "" {
		if m, err := core.UnmarshalMessage(r.TextKey, r.TextArgs); err == nil {
			n.Text = m
		}
	}
	return n
}

func (r *NotificationRepo) Settings(ctx context.Context, userID string) (notifications.Settings, error) {
	return r.getSettings(ctx, r.db, userID, "")
}

func (r *NotificationRepo) getSettings(ctx context.Context, q sqlx.QueryerContext, userID, suffix string) (notifications.Settings, error) {
	var row settingsRow
	b := r.db.sb.Select(settingsColumns...).From("notification_settings").Where(sq.Eq{"user_id": userID})
	if suffix != "" {
		b = b.Suffix(suffix)
	}
	err := r.db.get(ctx, q, &row, b)
	return row.settings(), err
}

// UpdateSettings locks the user's row (MySQL; SQLite transactions hold the
// write lock) and writes the result with one upsert, so a first write racing
// another cannot fail on the key.
func (r *NotificationRepo) UpdateSettings(ctx context.Context, userID string, fn func(s *notifications.Settings) error) (notifications.Settings, error) {
	var out notifications.Settings
	err := r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		s, err := r.getSettings(ctx, tx, userID, r.db.forUpdate())
		if isNotFound(err) {
			s, err = notifications.DefaultSettings(userID), nil
		}
		if err != nil {
			return err
		}
		if err := fn(&s); err != nil {
			return err
		}
		s.UserID = userID
		out = s
		return r.db.exec(ctx, tx, r.db.sb.Insert("notification_settings").Columns(settingsColumns...).
			Values(settingsValues(s)...).Suffix(r.db.upsertColumns("user_id", settingsColumns[1:]...)))
	})
	return out, err
}

func (r *NotificationRepo) AddNotification(ctx context.Context, n notifications.Notification) error {
	return r.addNotification(ctx, r.db, n)
}

func (r *NotificationRepo) addNotification(ctx context.Context, e sqlx.ExecerContext, n notifications.Notification) error {
	args, err := n.Text.MarshalArgs()
	if err != nil {
		return err
	}
	return r.db.exec(ctx, e, r.db.sb.Insert("notifications").Columns(notificationColumns...).
		Values(n.ID, n.UserID, n.Title, n.Message, n.Text.Key, args, string(n.Category), n.Read, n.CreatedAt.UnixMilli()))
}

type activityRow struct {
	NotificationID string `db:"notification_id"`
	Count          int    `db:"entry_count"`
	PushedAt       int64  `db:"pushed_at"`
	// Entry is the unread notification the row points to; zero (ID "")
	// when there is none: never made, read, or deleted.
	Entry notificationRow `db:"n"`
}

// activityColumns are activityRow's: the activity's own and its unread
// entry's, joined.
var activityColumns = append([]string{"a.notification_id", "a.entry_count", "a.pushed_at"},
	joinedColumns("n", reflect.TypeFor[notificationRow]())...)

// AddActivity reads the activity's row joined with the unread entry it
// points to, grows that entry or stores n as a new one, and writes the row
// back (an upsert: the first activity makes it). On MySQL it first upserts
// the row unchanged, which locks it until the transaction ends, so the read
// that follows sees the last committed state (like ThrottleRepo.Add), and
// reads the entry locked so that it cannot be marked read meanwhile: four
// statements. SQLite's transaction holds the write lock from its start: three.
func (r *NotificationRepo) AddActivity(ctx context.Context, a notifications.Activity, collect func(notifications.Collected) notifications.Collected) (notifications.Collected, error) {
	var next notifications.Collected
	err := r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		st, err := r.lockActivity(ctx, tx, a)
		if isNotFound(err) && r.db.Dialect == MySQL {
			// The first activity of its kind: the row is made (a no-op
			// upsert when a concurrent first made it meanwhile) and then
			// locked. Two firsts may deadlock on the gap their reads
			// locked; inTx runs the one MySQL rolled back again. Every
			// later activity finds its row and locks it at once, one
			// statement fewer (issue 36).
			if err := r.db.exec(ctx, tx, r.upsertActivity(a, "", 0, 0, r.db.upsert(activityKey, "entry_count = entry_count"))); err != nil {
				return err
			}
			st, err = r.lockActivity(ctx, tx, a)
		}
		if err != nil && !isNotFound(err) { // SQLite: no row before the first activity
			return err
		}
		c := st.collected()
		next = collect(c)
		if err := r.storeEntry(ctx, tx, c.Entry, *next.Entry); err != nil {
			return err
		}
		return r.db.exec(ctx, tx, r.upsertActivity(a, next.Entry.ID, next.Count, zeroMillis(next.PushedAt),
			r.db.upsertColumns(activityKey, "notification_id", "entry_count", "pushed_at")))
	})
	if err != nil {
		return notifications.Collected{}, err
	}
	return next, nil
}

// lockActivity reads a's row with its unread entry, locked until tx ends
// (SQLite's transaction holds the write lock from BEGIN).
func (r *NotificationRepo) lockActivity(ctx context.Context, tx *sqlx.Tx, a notifications.Activity) (activityRow, error) {
	var st activityRow
	err := r.db.get(ctx, tx, &st, r.db.sb.Select(activityColumns...).From("notification_activity a").
		LeftJoin("notifications n ON n.id = a.notification_id AND n.user_id = a.user_id AND n.is_read = ?", false).
		Where(sq.Eq{"a.user_id": a.UserID, "a.from_user_id": a.From, "a.kind": string(a.Kind)}).
		Suffix(r.db.forUpdate()))
	return st, err
}

// collected is what the row says: the unread entry (nil when none), its
// count, the last push.
func (st activityRow) collected() notifications.Collected {
	c := notifications.Collected{Count: st.Count}
	if st.PushedAt != 0 {
		c.PushedAt = core.FromMillis(st.PushedAt)
	}
	if st.Entry.ID != "" {
		e := st.Entry.notification()
		c.Entry = &e
	} else {
		c.Count = 0
	}
	return c
}

// storeEntry inserts e when it is not was (a new entry), else updates its
// text and time.
func (r *NotificationRepo) storeEntry(ctx context.Context, tx *sqlx.Tx, was *notifications.Notification, e notifications.Notification) error {
	if was == nil || was.ID != e.ID {
		return r.addNotification(ctx, tx, e)
	}
	args, err := e.Text.MarshalArgs()
	if err != nil {
		return err
	}
	return r.db.exec(ctx, tx, r.db.sb.Update("notifications").Set("title", e.Title).Set("message", e.Message).
		Set("text_key", e.Text.Key).Set("text_args", args).Set("created_at", e.CreatedAt.UnixMilli()).Where(sq.Eq{"id": e.ID}))
}

// activityKey is notification_activity's primary key.
const activityKey = "user_id, from_user_id, kind"

// upsertActivity writes a's row with these values, or on the existing one
// does what the upsert suffix says.
func (r *NotificationRepo) upsertActivity(a notifications.Activity, entryID string, count int, pushedAt int64, upsert string) sq.InsertBuilder {
	return r.db.sb.Insert("notification_activity").
		Columns("user_id", "from_user_id", "kind", "notification_id", "entry_count", "pushed_at").
		Values(a.UserID, a.From, string(a.Kind), entryID, count, pushedAt).
		Suffix(upsert)
}

// ListNotifications reads one index range: idx_notifications_user, or
// idx_notifications_user_read for the unread ones, from the cursor down.
func (r *NotificationRepo) ListNotifications(ctx context.Context, userID string, unreadOnly bool, page core.Page) ([]notifications.Notification, string, error) {
	b := r.db.sb.Select(notificationColumns...).From("notifications").Where(sq.Eq{"user_id": userID})
	if unreadOnly {
		b = b.Where(sq.Eq{"is_read": false})
	}
	rows, next, err := newestFirst(ctx, r.db, b, page, func(row notificationRow) core.TimeCursor {
		return core.TimeCursor{At: row.CreatedAt, ID: row.ID}
	})
	if err != nil {
		return nil, "", err
	}
	out := make([]notifications.Notification, len(rows))
	for i, row := range rows {
		out[i] = row.notification()
	}
	return out, next, nil
}

func (r *NotificationRepo) CountUnread(ctx context.Context, userID string) (int, error) {
	var n int
	err := r.db.get(ctx, r.db, &n, r.db.sb.Select("COUNT(*)").From("notifications").
		Where(sq.Eq{"user_id": userID, "is_read": false}))
	return n, err
}

// MarkRead matches the row by id and owner; ClientFoundRows (MySQL) makes an
// already read one count as found.
// made, when given, reads the row back in the transaction.
func (r *NotificationRepo) MarkRead(ctx context.Context, userID, id string, made func(notifications.Notification)) error {
	mark := r.db.sb.Update("notifications").Set("is_read", true).Where(sq.Eq{"id": id, "user_id": userID})
	if made == nil {
		return r.db.execOne(ctx, r.db, mark)
	}
	return r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := r.db.execOne(ctx, tx, mark); err != nil {
			return err
		}
		var row notificationRow
		if err := r.db.get(ctx, tx, &row, r.db.sb.Select(notificationColumns...).From("notifications").
			Where(sq.Eq{"id": id, "user_id": userID})); err != nil {
			return err
		}
		made(row.notification())
		return nil
	})
}

func (r *NotificationRepo) MarkAllRead(ctx context.Context, userID string) (int, error) {
	n, err := r.db.execN(ctx, r.db, r.db.sb.Update("notifications").Set("is_read", true).
		Where(sq.Eq{"user_id": userID, "is_read": false}))
	return int(n), err
}

func (r *NotificationRepo) DeleteUser(ctx context.Context, userID string) error {
	return r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		for _, table := range []string{"notification_settings", "notifications", "notification_devices", "notification_activity"} {
			if err := r.db.exec(ctx, tx, r.db.sb.Delete(table).Where(sq.Eq{"user_id": userID})); err != nil {
				return err
			}
		}
		return r.db.exec(ctx, tx, r.db.sb.Delete("notification_activity").Where(sq.Eq{"from_user_id": userID}))
	})
}
