package memory

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"tandem/core"
	"tandem/modules/notifications"
)

var _ notifications.Repository = (*NotificationRepo)(nil)

// NotificationRepo keeps settings, notifications and devices in maps under
// one mutex, so each method is atomic like its SQL transaction; byToken plays
// the role of the unique token index.
type NotificationRepo struct {
	mu       sync.RWMutex
	settings table[string, notifications.Settings]   // by user id
	inbox    map[string][]notifications.Notification // by user id, in insertion order
	owner    map[string]string                       // notification id -> user id
	devices  table[string, notifications.Device]     // by id; unique: Token
	activity table[activityKey, activityState]
}

// activityKey and activityState are a row of notification_activity.
type activityKey struct {
	userID, from string
	kind         notifications.ActivityKind
}

type activityState struct {
	notificationID string
	count          int
	pushedAt       time.Time // zero: never
}

func NewNotificationRepo() *NotificationRepo {
	return &NotificationRepo{settings: newTable[string, notifications.Settings](nil, notFound("memory.noSettings", "no settings")),
		inbox: map[string][]notifications.Notification{}, owner: map[string]string{},
		devices: newTable[string, notifications.Device](conflict("memory.deviceExists", "device exists"),
			notFound("memory.noSuchDevice", "no such device")).
			indexed(func(d notifications.Device) string { return d.Token }),
		activity: newTable[activityKey, activityState](nil, nil)}
}

func (r *NotificationRepo) Settings(_ context.Context, userID string) (notifications.Settings, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.settings.find(userID)
}

func (r *NotificationRepo) UpdateSettings(_ context.Context, userID string, fn func(s *notifications.Settings) error) (notifications.Settings, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.settings.get(userID)
	if !ok {
		s = notifications.DefaultSettings(userID)
	}
	if err := fn(&s); err != nil {
		return notifications.Settings{}, err
	}
	s.UserID = userID
	r.settings.put(userID, s)
	return s, nil
}

func (r *NotificationRepo) AddNotification(_ context.Context, n notifications.Notification) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, taken := r.owner[n.ID]; taken {
		return core.Conflict("conflict", "memory.notificationExists", "notification exists")
	}
	r.owner[n.ID] = n.UserID
	r.inbox[n.UserID] = append(r.inbox[n.UserID], n)
	return nil
}

func (r *NotificationRepo) AddActivity(_ context.Context, a notifications.Activity, collect func(notifications.Collected) notifications.Collected) (notifications.Collected, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	key := activityKey{userID: a.UserID, from: a.From, kind: a.Kind}
	st, _ := r.activity.get(key)
	var c notifications.Collected
	if entry := r.unreadLocked(a.UserID, st.notificationID); entry != nil {
		c = notifications.Collected{Entry: new(*entry), Count: st.count, PushedAt: st.pushedAt}
	} else {
		c.PushedAt = st.pushedAt
	}
	next := collect(c)
	if err := r.storeEntryLocked(c.Entry, *next.Entry); err != nil {
		return notifications.Collected{}, err
	}
	r.activity.put(key, activityState{notificationID: next.Entry.ID, count: next.Count, pushedAt: next.PushedAt})
	return next, nil
}

// storeEntryLocked inserts e when it is not was (a new entry), else
// updates was's text and time.
func (r *NotificationRepo) storeEntryLocked(was *notifications.Notification, e notifications.Notification) error {
	if was == nil || was.ID != e.ID {
		if _, taken := r.owner[e.ID]; taken {
			return core.Conflict("conflict", "memory.notificationExists", "notification exists")
		}
		r.owner[e.ID] = e.UserID
		r.inbox[e.UserID] = append(r.inbox[e.UserID], e)
		return nil
	}
	stored := r.unreadLocked(e.UserID, e.ID)
	stored.Title, stored.Message, stored.Text, stored.CreatedAt = e.Title, e.Message, e.Text, e.CreatedAt
	return nil
}

// unreadLocked is the user's notification id while unread, else nil.
func (r *NotificationRepo) unreadLocked(userID, id string) *notifications.Notification {
	list := r.inbox[userID]
	for i := range list {
		if list[i].ID == id && !list[i].Read {
			return &list[i]
		}
	}
	return nil
}

// newerNotification orders like the SQL query: created_at, then id, descending.
func newerNotification(a, b notifications.Notification) int {
	if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
		return c
	}
	return cmp.Compare(b.ID, a.ID)
}

func (r *NotificationRepo) ListNotifications(_ context.Context, userID string, unreadOnly bool, page core.Page) ([]notifications.Notification, string, error) {
	var after *notifications.Notification
	if page.Cursor != "" {
		c, err := core.ParseTimeCursor(page.Cursor)
		if err != nil {
			return nil, "", err
		}
		after = &notifications.Notification{ID: c.ID, CreatedAt: core.FromMillis(c.At)}
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []notifications.Notification
	for _, n := range r.inbox[userID] {
		if unreadOnly && n.Read {
			continue
		}
		if after != nil && newerNotification(*after, n) >= 0 {
			continue // not older than the cursor's item
		}
		out = append(out, n)
	}
	slices.SortFunc(out, newerNotification)
	out, next := core.CutPage(out, page, func(x notifications.Notification) string {
		return core.TimeCursor{At: core.Millis(x.CreatedAt), ID: x.ID}.String()
	})
	return out, next, nil
}

func (r *NotificationRepo) CountUnread(_ context.Context, userID string) (int, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	n := 0
	for _, x := range r.inbox[userID] {
		if !x.Read {
			n++
		}
	}
	return n, nil
}

func (r *NotificationRepo) MarkRead(_ context.Context, userID, id string, made func(notifications.Notification)) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	list := r.inbox[userID]
	for i := range list {
		if list[i].ID == id {
			list[i].Read = true
			if made != nil {
				made(list[i])
			}
			return nil
		}
	}
	return core.NotFound("not_found", "memory.noSuchNotification", "no such notification")
}

func (r *NotificationRepo) MarkAllRead(_ context.Context, userID string) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	list, n := r.inbox[userID], 0
	for i := range list {
		if !list[i].Read {
			list[i].Read = true
			n++
		}
	}
	return n, nil
}

func (r *NotificationRepo) RegisterDevice(_ context.Context, d notifications.Device, decide func(notifications.DeviceState) notifications.DeviceChange) (notifications.Device, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var st notifications.DeviceState
	if holder, known := r.devices.lookup(d.Token); known {
		st.Holder = &holder
	}
	st.Mine = r.devicesLocked(d.UserID)
	change := decide(st)
	if old, taken := r.devices.get(change.Save.ID); taken && old.Token != change.Save.Token {
		return notifications.Device{}, r.devices.conflict()
	}
	for _, id := range change.Forget {
		r.devices.delete(id)
	}
	r.devices.put(change.Save.ID, change.Save)
	return change.Save, nil
}

func (r *NotificationRepo) devicesLocked(userID string) []notifications.Device {
	return r.devices.scan(func(d notifications.Device) bool { return d.UserID == userID }, notifications.NewerDevice)
}

func (r *NotificationRepo) Devices(_ context.Context, userID string) ([]notifications.Device, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.devicesLocked(userID), nil
}

func (r *NotificationRepo) RemoveDevice(_ context.Context, userID, id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, err := r.devices.findIf(id, func(d notifications.Device) bool { return d.UserID == userID }); err != nil {
		return err
	}
	r.devices.delete(id)
	return nil
}

func (r *NotificationRepo) RemoveDevices(_ context.Context, ids []string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, id := range ids {
		r.devices.delete(id)
	}
	return nil
}

func (r *NotificationRepo) DeleteUser(_ context.Context, userID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.settings.delete(userID)
	for _, n := range r.inbox[userID] {
		delete(r.owner, n.ID)
	}
	delete(r.inbox, userID)
	r.devices.deleteWhere(func(_ string, d notifications.Device) bool { return d.UserID == userID })
	r.activity.deleteWhere(func(k activityKey, _ activityState) bool { return k.userID == userID || k.from == userID })
	return nil
}

var _ notifications.TicketRepository = (*TicketRepo)(nil)

// TicketRepo keeps push tickets in a map under one mutex; checked is when a
// ticket was last claimed (its SentAt before the first claim).
type TicketRepo struct {
	mu      sync.Mutex
	tickets map[string]notifications.Ticket
	checked schedule[string]
}

func NewTicketRepo() *TicketRepo {
	return &TicketRepo{tickets: map[string]notifications.Ticket{}, checked: schedule[string]{}}
}

func (r *TicketRepo) AddTickets(_ context.Context, ts []notifications.Ticket) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, t := range ts {
		if _, ok := r.tickets[t.ID]; !ok {
			r.tickets[t.ID], r.checked[t.ID] = t, t.SentAt
		}
	}
	return nil
}

// ClaimTickets claims the longest waiting first, as the SQL query does.
func (r *TicketRepo) ClaimTickets(_ context.Context, due, now time.Time, limit int) ([]notifications.Ticket, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []notifications.Ticket
	for _, id := range r.checked.due(due, limit) {
		out = append(out, r.tickets[id])
		r.checked[id] = now
	}
	return out, nil
}

func (r *TicketRepo) DeleteTickets(_ context.Context, ids []string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, id := range ids {
		delete(r.tickets, id)
		delete(r.checked, id)
	}
	return nil
}

var _ notifications.DailyReminderRepository = (*DailyReminderRepo)(nil)

// DailyReminderRepo keeps each user's next reminder instant and the claimed
// (user, date) pairs under one mutex.
type DailyReminderRepo struct {
	mu     sync.Mutex
	next   schedule[string] // by user id
	claims table[reminderDay, time.Time]
}

type reminderDay struct {
	userID string
	day    core.Date
}

func NewDailyReminderRepo() *DailyReminderRepo {
	return &DailyReminderRepo{next: schedule[string]{}, claims: newTable[reminderDay, time.Time](nil, nil)}
}

func (r *DailyReminderRepo) ScheduleReminder(_ context.Context, userID string, at time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next[userID] = at
	return nil
}

func (r *DailyReminderRepo) DueReminders(_ context.Context, now time.Time, limit int) ([]notifications.DueReminder, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []notifications.DueReminder
	for _, u := range r.next.due(now, limit) {
		out = append(out, notifications.DueReminder{UserID: u, At: r.next[u]})
	}
	return out, nil
}

func (r *DailyReminderRepo) MoveReminder(_ context.Context, userID string, from, to time.Time) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.next.move(userID, from, to), nil
}

func (r *DailyReminderRepo) ClearReminder(_ context.Context, userID string, at time.Time) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.next.clear(userID, at), nil
}

func (r *DailyReminderRepo) ClaimReminderDay(_ context.Context, userID string, day core.Date, at time.Time) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := reminderDay{userID, day}
	if r.claims.has(k) {
		return false, nil
	}
	r.claims.put(k, at)
	return true, nil
}

func (r *DailyReminderRepo) PurgeReminderDays(_ context.Context, before core.Date) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.claims.deleteWhere(func(k reminderDay, _ time.Time) bool { return k.day.Before(before) })), nil
}

func (r *DailyReminderRepo) DeleteUserReminders(_ context.Context, userID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.next, userID)
	r.claims.deleteWhere(func(k reminderDay, _ time.Time) bool { return k.userID == userID })
	return nil
}
