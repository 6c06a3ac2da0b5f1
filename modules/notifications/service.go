package notifications

import (
	"context"
	"errors"
	"strings"
	"time"

	"tandem/core"
)

// Service holds every notification rule of the API (docs/api.md).
type Service struct {
	repo      Repository
	tickets   TicketRepository
	reminders DailyReminderRepository
	users     Users
	pusher    Pusher
	providers Providers
	bus       core.Publisher
	clock     core.Clock
	ids       core.IDs
	texts     core.Translator
}

// NewService is a plain constructor, usable without fx.
func NewService(repo Repository, tickets TicketRepository, reminders DailyReminderRepository, users Users, pusher Pusher,
	providers Providers, bus core.Publisher, clock core.Clock, ids core.IDs, texts core.Translator) *Service {
	return &Service{repo: repo, tickets: tickets, reminders: reminders, users: users, pusher: pusher, providers: providers, bus: bus,
		clock: clock, ids: ids, texts: texts}
}

// write fills n's Title and Message from its Text in locale; a
// notification without a Text keeps them as written.
func (s *Service) write(n *Notification, locale string) {
	if n.Text.Key == "" {
		return
	}
	n.Title = s.texts.Translate(locale, core.Msg(n.Text.Key+".title", n.Text.Args...))
	n.Message = s.texts.Translate(locale, core.Msg(n.Text.Key+".body", n.Text.Args...))
}

// localeOf is the user's locale; English for an account that is gone (its
// inbox is being purged: whoever still reads it reads English).
func (s *Service) localeOf(ctx context.Context, userID string) (string, error) {
	locale, err := s.users.Locale(ctx, userID)
	if core.IsKind(err, core.KindNotFound) {
		return "en", nil
	}
	return locale, err
}

// inLocale is ns written for their reader (every one is userID's).
func (s *Service) inLocale(ctx context.Context, userID string, ns []Notification) error {
	locale, err := s.localeOf(ctx, userID)
	if err != nil {
		return err
	}
	for i := range ns {
		s.write(&ns[i], locale)
	}
	return nil
}

// LiveCreated is the live event of a notification saved to an inbox (a new
// one, or a coalesced activity entry that counts one more): its recipient
// hears of it, with the notification as the inbox lists it.
const LiveCreated = "notification.created"

// announce tells the recipient's open apps of n, saved and written in
// their locale: only the recipient reads an inbox.
func (s *Service) announce(ctx context.Context, n Notification) {
	ctx, cancel := core.AfterCommit(ctx) // the write stands: never wait on a hung store for its news
	defer cancel()
	s.bus.Publish(ctx, core.Live{Type: LiveCreated, For: map[string]any{n.UserID: n}})
}

// Settings returns the user's settings, the defaults when never set.
func (s *Service) Settings(ctx context.Context, userID string) (Settings, error) {
	st, err := s.repo.Settings(ctx, userID)
	if core.IsKind(err, core.KindNotFound) {
		return DefaultSettings(userID), nil
	}
	return st, err
}

// UpdateSettings applies c (any subset of the eight keys by the rules of
// Settings.Apply, and the daily reminder time; at least one) and returns
// the full set after the update. A new reminder time reschedules the
// user's daily reminder.
func (s *Service) UpdateSettings(ctx context.Context, userID string, c Changes) (Settings, error) {
	if len(c.Switches) == 0 && c.ReminderTime == nil {
		return Settings{}, core.Invalid("invalid_request", "notifications.sendLeastOneEightSetting", "send at least one of the eight setting keys or "+ReminderTimeKey)
	}
	for k := range c.Switches {
		if _, err := ParseSetting(string(k)); err != nil {
			return Settings{}, err
		}
	}
	now := s.clock.Now()
	st, err := s.repo.UpdateSettings(ctx, userID, func(st *Settings) error {
		*st = st.Apply(c.Switches)
		if c.ReminderTime != nil {
			st.ReminderTime = *c.ReminderTime
		}
		st.UserID, st.UpdatedAt = userID, now
		return nil
	})
	if err != nil || c.ReminderTime == nil {
		return st, err
	}
	return st, s.schedule(ctx, userID, st)
}

// schedule sets the user's next daily reminder by their settings st and
// their timezone (the job checks it again before sending). Two concurrent
// updates of one user's time may leave the older one's instant; the job
// then sends at that instant if it is the same local date, else a day is
// lost: a race of one user with themselves, left as it is.
func (s *Service) schedule(ctx context.Context, userID string, st Settings) error {
	loc, err := s.users.Location(ctx, userID)
	if err != nil {
		return err
	}
	return s.reminders.ScheduleReminder(ctx, userID, NextReminder(s.clock.Now(), st.ReminderTime, loc))
}

// reschedule is schedule with the stored settings.
func (s *Service) reschedule(ctx context.Context, userID string) error {
	st, err := s.Settings(ctx, userID)
	if err != nil {
		return err
	}
	return s.schedule(ctx, userID, st)
}

// Notify saves a notification in the user's inbox (and announces it live,
// LiveCreated), then, when the setting its category maps to is on and
// pauseAll is off, pushes it to every device of the user through its
// provider. Devices whose token the provider reports
// dead are removed. Other modules call it through a port of their own.
func (s *Service) Notify(ctx context.Context, userID, category, title, message string) (Result, error) {
	c, err := ParseCategory(category)
	if err != nil {
		return Result{}, err
	}
	title, message = strings.TrimSpace(title), strings.TrimSpace(message)
	if err := validateContent(title, message); err != nil {
		return Result{}, err
	}
	settings, err := s.Settings(ctx, userID)
	if err != nil {
		return Result{}, err
	}
	n := Notification{ID: s.ids.New(), UserID: userID, Title: title, Message: message, Category: c,
		CreatedAt: s.clock.Now()}
	if err := s.add(ctx, n); err != nil {
		return Result{}, err
	}
	s.announce(ctx, n)
	return s.push(ctx, n, settings, true)
}

// Tell is Notify with a text of the catalogs (m.Key+".title" and ".body",
// filled with m.Args): stored with its key and arguments, and written in
// the reader's locale wherever it is read (the inbox, the live stream, the
// push). Other modules call it through a port of their own.
func (s *Service) Tell(ctx context.Context, userID, category string, m core.Message) (Result, error) {
	c, err := ParseCategory(category)
	if err != nil {
		return Result{}, err
	}
	if _, err := m.MarshalArgs(); err != nil {
		return Result{}, core.Internal(err)
	}
	n := Notification{ID: s.ids.New(), UserID: userID, Text: m, Category: c, CreatedAt: s.clock.Now()}
	s.write(&n, "en")
	if err := validateContent(n.Title, n.Message); err != nil {
		return Result{}, err
	}
	settings, err := s.Settings(ctx, userID)
	if err != nil {
		return Result{}, err
	}
	if err := s.add(ctx, n); err != nil {
		return Result{}, err
	}
	return s.deliver(ctx, n, settings)
}

// deliver announces n, saved, and pushes it, both written in its reader's
// locale.
func (s *Service) deliver(ctx context.Context, n Notification, settings Settings) (Result, error) {
	locale, err := s.localeOf(ctx, n.UserID)
	if err != nil {
		return Result{}, err
	}
	s.write(&n, locale)
	s.announce(ctx, n)
	return s.push(ctx, n, settings, true)
}

// NotifyActivity tells a.UserID that their partner a.From did a.Kind (in
// a.Kind.Category(): partnerActivity, or mood), coalesced: while the entry for a's user, actor
// and kind is unread it counts one more ("Your partner added 3 memories") and
// comes to the top, instead of a new entry each time; and it is pushed, with
// its count, at most once per PushEvery (as Notify, only when the settings
// allow it). The entry as stored is announced live (LiveCreated). Other
// modules call it through a port of their own.
func (s *Service) NotifyActivity(ctx context.Context, a Activity) (Result, error) {
	if a.UserID == "" || a.From == "" {
		return Result{}, core.Invalid("invalid_request", "notifications.activityNeedsUserActor", "an activity needs its user and its actor")
	}
	if _, err := ParseActivityKind(string(a.Kind)); err != nil {
		return Result{}, err
	}
	n := Notification{ID: s.ids.New(), UserID: a.UserID, Category: a.Kind.Category(), CreatedAt: s.clock.Now()}
	locale, err := s.localeOf(ctx, a.UserID)
	if err != nil {
		return Result{}, err
	}
	var push bool
	var made Notification // the entry stored, for the feed's put
	put := []core.Change{core.PutMade(a.UserID, core.ChangeNotification, func() (string, any) {
		e := made
		s.write(&e, locale)
		return e.ID, e
	})}
	var stored Collected
	err = core.WriteWithChanges(ctx, s.bus, put, func(ctx context.Context) (err error) {
		stored, err = s.repo.AddActivity(ctx, a, func(c Collected) Collected {
			var next Collected
			next, push = Collect(c, a, n, PushEvery)
			s.write(next.Entry, "en")
			made = *next.Entry
			return next
		})
		return err
	})
	if err != nil {
		return Result{}, err
	}
	entry := *stored.Entry
	s.write(&entry, locale)
	s.announce(ctx, entry)
	if !push {
		// Counted within the quiet period: no push is due, so neither the
		// settings nor the devices are read (most activities of a busy
		// partner end here).
		return Result{Notification: entry, Setting: entry.Category.Setting()}, nil
	}
	settings, err := s.Settings(ctx, a.UserID)
	if err != nil {
		return Result{}, err
	}
	return s.push(ctx, entry, settings, true)
}

// push sends n to every device of its user when allowed (the settings allow
// its category, and may is true), removes the devices whose token the
// provider reports dead, and keeps the tickets of the accepted pushes whose
// receipts come later (Receipts).
func (s *Service) push(ctx context.Context, n Notification, settings Settings, may bool) (Result, error) {
	devices, err := s.repo.Devices(ctx, n.UserID)
	if err != nil {
		return Result{}, err
	}
	c := n.Category
	res := Result{Notification: n, OptedIn: settings.Allows(c), Setting: c.Setting(), Paused: settings.PauseAll,
		Total: len(devices)}
	if !may || !res.OptedIn || len(devices) == 0 {
		return res, nil
	}
	deliveries := s.pusher.Push(ctx, Message{NotificationID: n.ID, Title: n.Title, Body: n.Message, Category: c}, devices)
	var dead []string
	var tickets []Ticket
	for i, d := range devices {
		if i >= len(deliveries) {
			break // a pusher that answered short: the rest failed
		}
		switch deliveries[i].Outcome {
		case OutcomeDelivered:
			res.Sent++
			if id := deliveries[i].Ticket; id != "" {
				tickets = append(tickets, Ticket{ID: id, DeviceID: d.ID, SentAt: s.clock.Now()})
			}
		case OutcomeDeadToken:
			dead = append(dead, d.ID)
		}
	}
	if len(tickets) > 0 {
		if err := s.tickets.AddTickets(ctx, tickets); err != nil {
			return Result{}, err
		}
	}
	if len(dead) > 0 {
		if err := s.repo.RemoveDevices(ctx, dead); err != nil {
			return Result{}, err
		}
		res.Removed = len(dead)
	}
	return res, nil
}

// List returns the user's notifications newest first, the unread ones only
// when unreadOnly; page as in Repository.ListNotifications.
func (s *Service) List(ctx context.Context, userID string, unreadOnly bool, page core.Page) ([]Notification, string, error) {
	ns, next, err := s.repo.ListNotifications(ctx, userID, unreadOnly, page)
	if err != nil {
		return nil, "", err
	}
	if ns == nil {
		ns = []Notification{}
	}
	return ns, next, s.inLocale(ctx, userID, ns)
}

// UnreadCount counts the user's unread notifications.
func (s *Service) UnreadCount(ctx context.Context, userID string) (int, error) {
	return core.Memo(ctx, unreadKey(userID), func() (int, error) { return s.repo.CountUnread(ctx, userID) })
}

func unreadKey(userID string) string { return "notifications.unread:" + userID }

// RememberUnread records n as the request's read memo answer for the
// user's unread count: a batch read (the home screen's) counts it with the
// rest. Without a memo it does nothing.
func RememberUnread(ctx context.Context, userID string, n int) {
	core.Remember(ctx, unreadKey(userID), n, nil)
}

// RegisterDevice registers a push token for the user. The same token again
// returns the same device. A token another user holds (a phone changes
// hands, or a couple shares one) leaves that user and becomes a new device
// of this one, with a new id: the previous owner's device id is never
// revealed, and is unknown to everyone from then on.
func (s *Service) RegisterDevice(ctx context.Context, userID string, r Registration) (Device, error) {
	platform, err := core.ParsePlatform(r.Platform)
	if err != nil {
		return Device{}, err
	}
	if err := s.providers.CheckProvider(r.Provider); err != nil {
		return Device{}, err
	}
	if err := ValidateToken(r.Token); err != nil {
		return Device{}, err
	}
	if err := s.providers.CheckToken(r.Provider, r.Token); err != nil {
		return Device{}, err
	}
	now := s.clock.Now()
	d := Device{ID: s.ids.New(), UserID: userID, Token: r.Token, Platform: platform, Provider: r.Provider,
		CreatedAt: now, UpdatedAt: now}
	return s.repo.RegisterDevice(ctx, d, func(st DeviceState) DeviceChange { return DecideRegister(st, d, MaxDevices) })
}

// Devices lists the user's devices, most recently registered first, without
// their tokens.
func (s *Service) Devices(ctx context.Context, userID string) ([]DeviceInfo, error) {
	devices, err := s.repo.Devices(ctx, userID)
	if err != nil {
		return nil, err
	}
	out := make([]DeviceInfo, len(devices))
	for i, d := range devices {
		out[i] = DeviceInfo{ID: d.ID, Platform: d.Platform, Provider: d.Provider, RegisteredAt: d.UpdatedAt}
	}
	return out, nil
}

// RemoveDevice unregisters one of the user's devices; 404 not_found for an
// unknown id or another user's.
func (s *Service) RemoveDevice(ctx context.Context, userID, deviceID string) error {
	err := s.repo.RemoveDevice(ctx, userID, deviceID)
	if core.IsKind(err, core.KindNotFound) {
		return errDeviceNotFound()
	}
	return err
}

// Listener notifies both former partners when their partnership ends
// (category partnerActivity), schedules the daily reminders of new partners
// and of a user whose timezone changed, and removes whatever a deleted
// account still received while it was being deleted.
func (s *Service) Listener() core.Listener {
	return core.Listener{Name: "notifications", Handle: func(ctx context.Context, e core.Event) error {
		switch ev := e.(type) {
		case core.PartnershipStarted:
			var errs []error
			for _, u := range ev.UserIDs {
				if u != "" {
					errs = append(errs, s.reschedule(ctx, u))
				}
			}
			return errors.Join(errs...)
		case core.TimezoneChanged:
			return s.reschedule(ctx, ev.UserID)
		case core.PartnershipEnded:
			var errs []error
			for _, u := range ev.UserIDs {
				if u == "" {
					continue
				}
				if _, err := s.Tell(ctx, u, string(CategoryPartnerActivity), core.Msg("partnership.ended")); err != nil {
					errs = append(errs, err)
				}
			}
			return errors.Join(errs...)
		case core.AccountDeleted:
			return s.PurgeUser(ctx, ev.UserID)
		}
		return nil
	}}
}

// Section, ExportUser and PurgeUser make the module a core.UserData owner.
func (s *Service) Section() string { return "notifications" }

// Export is the user's data of this module.
type Export struct {
	Settings      Settings
	Notifications []Notification // newest first
	Devices       []DeviceInfo
}

// DeviceInfo is a device without its token: with the token anyone could
// push to the phone through its provider, so it never leaves the module (lists,
// exports).
type DeviceInfo struct {
	ID           string
	Platform     Platform
	Provider     string
	RegisteredAt time.Time // the last registration
}

// ExportUser returns the settings, every notification (newest first) and the
// devices of the user.
func (s *Service) ExportUser(ctx context.Context, userID string) (any, error) {
	st, err := s.Settings(ctx, userID)
	if err != nil {
		return nil, err
	}
	list := func(p core.Page) ([]Notification, string, error) {
		return s.repo.ListNotifications(ctx, userID, false, p)
	}
	notifications, err := core.EveryPage(list, func(n Notification) Notification { return n })
	if err == nil {
		err = s.inLocale(ctx, userID, notifications)
	}
	if err != nil {
		return nil, err
	}
	devices, err := s.Devices(ctx, userID)
	if err != nil {
		return nil, err
	}
	return Export{Settings: st, Notifications: notifications, Devices: devices}, nil
}

// PurgeUser deletes the user's settings, notifications, devices and daily
// reminder.
func (s *Service) PurgeUser(ctx context.Context, userID string) error {
	return errors.Join(s.repo.DeleteUser(ctx, userID), s.reminders.DeleteUserReminders(ctx, userID))
}
