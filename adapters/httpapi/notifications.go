package httpapi

import (
	"bytes"
	"encoding/json"

	"github.com/gofiber/fiber/v2"

	"tandem/core"
	"tandem/modules/notifications"
)

var _ = documentRulesOf("notifications", notifications.Rules)

type notificationsHandler struct {
	svc     *notifications.Service
	limiter core.Limiter
	idem    *Idempotency
}

func NewNotificationsHandler(svc *notifications.Service, limiter core.Limiter, idem *Idempotency) *notificationsHandler {
	return &notificationsHandler{svc: svc, limiter: limiter, idem: idem}
}

// pushesPerMinute bounds what one account can make the push providers send
// on demand: a test push each, and device registrations (a known push token
// moves to whoever registers it).
const pushesPerMinute = 20

func (h *notificationsHandler) Register(r fiber.Router) {
	u := r.Group("/api/users/user/:userId", requireSelf)
	u.Get("/notification-settings", h.settings)
	u.Put("/notification-settings", h.updateSettings)
	u.Patch("/notification-settings", h.updateSettings)
	u.Post("/send-test-notification", limitPerUser(h.limiter, "push_test_user", pushesPerMinute), h.sendTest)
	u.Get("/notifications/unread", h.unread)
	u.Get("/notifications", h.list)
	u.Patch("/notifications", h.markRead)
	u.Get("/devices", h.devices)
	u.Post("/devices", limitPerUser(h.limiter, "devices_user", pushesPerMinute), h.idem.Guard, h.registerDevice)
	u.Delete("/devices/:deviceId", h.removeDevice)
}

// The reply bodies. Field names are the app's contract: do not rename.
type settingsJSON struct {
	PauseAll           bool `json:"pauseAll"`
	DailyReminders     bool `json:"dailyReminders"`
	MoodUpdates        bool `json:"moodUpdates"`
	HabitsReminder     bool `json:"habitsReminder"`
	EventsNotification bool `json:"eventsNotification"`
	GamesNotification  bool `json:"gamesNotification"`
	PartnerActivity    bool `json:"partnerActivity"`
	SystemUpdates      bool `json:"systemUpdates"`
	// DailyReminderTime (HH:MM, the user's timezone) is an addition to the
	// spec's eight keys.
	DailyReminderTime string `json:"dailyReminderTime"`
}

type settingsReply struct {
	Success  bool         `json:"success"`
	Settings settingsJSON `json:"settings"`
	Message  string       `json:"message,omitempty"`
}

// testReply carries exactly one of userOptedIn and userOptedOut.
type testReply struct {
	Success          bool   `json:"success"`
	Message          string `json:"message"`
	NotificationType string `json:"notificationType"`
	UserOptedIn      *bool  `json:"userOptedIn,omitempty"`
	UserOptedOut     *bool  `json:"userOptedOut,omitempty"`
	Saved            bool   `json:"saved"`
	Sent             int    `json:"sent"`
	Total            int    `json:"total"`
	Action           string `json:"action"`
}

type notificationJSON struct {
	ID        string `json:"id"`
	Title     string `json:"title"`
	Message   string `json:"message"`
	Category  string `json:"category"`
	Read      bool   `json:"read"`
	CreatedAt int64  `json:"createdAt"`
}

type notificationsReply struct {
	Success       bool               `json:"success"`
	Notifications []notificationJSON `json:"notifications"`
}

func toSettingsJSON(s notifications.Settings) settingsJSON {
	return settingsJSON{PauseAll: s.PauseAll, DailyReminders: s.DailyReminders, MoodUpdates: s.MoodUpdates,
		HabitsReminder: s.HabitsReminder, EventsNotification: s.EventsNotification,
		GamesNotification: s.GamesNotification, PartnerActivity: s.PartnerActivity, SystemUpdates: s.SystemUpdates,
		DailyReminderTime: s.ReminderTime.String()}
}

func toNotificationJSON(n notifications.Notification) notificationJSON {
	return notificationJSON{ID: n.ID, Title: n.Title, Message: n.Message, Category: string(n.Category),
		Read: n.Read, CreatedAt: core.Millis(n.CreatedAt)}
}

func toNotificationsJSON(ns []notifications.Notification) []notificationJSON {
	out := make([]notificationJSON, len(ns))
	for i, n := range ns {
		out[i] = toNotificationJSON(n)
	}
	return out
}

// notificationsExportJSON is the module's part of the account export: the
// settings, the inbox and the devices as the API shows them.
type notificationsExportJSON struct {
	Settings      settingsJSON       `json:"settings"`
	Notifications []notificationJSON `json:"notifications"`
	Devices       []deviceJSON       `json:"devices"`
}

// deviceJSON is a registered device; the module never hands out its token.
type deviceJSON struct {
	ID           string `json:"id"`
	Platform     string `json:"platform"`
	Provider     string `json:"provider"`
	RegisteredAt int64  `json:"registeredAt"`
}

type devicesReply struct {
	Success bool         `json:"success"`
	Devices []deviceJSON `json:"devices"`
}

func toDevicesJSON(ds []notifications.DeviceInfo) []deviceJSON {
	out := make([]deviceJSON, len(ds))
	for i, d := range ds {
		out[i] = deviceJSON{ID: d.ID, Platform: string(d.Platform), Provider: d.Provider,
			RegisteredAt: core.Millis(d.RegisteredAt)}
	}
	return out
}

// toNotificationsExportJSON renders the account export's notifications section (export.go).
var _ = exportSection(toNotificationsExportJSON)

func toNotificationsExportJSON(e notifications.Export) notificationsExportJSON {
	return notificationsExportJSON{Settings: toSettingsJSON(e.Settings), Notifications: toNotificationsJSON(e.Notifications),
		Devices: toDevicesJSON(e.Devices)}
}

func (h *notificationsHandler) settings(c *fiber.Ctx) error {
	s, err := h.svc.Settings(c.UserContext(), c.Params("userId"))
	if err != nil {
		return err
	}
	return c.JSON(settingsReply{Success: true, Settings: toSettingsJSON(s)})
}

// updateSettings takes any subset of the eight boolean keys and
// dailyReminderTime ("HH:MM"); an unknown key, another type or a bad time
// is a 400 and nothing is written.
func (h *notificationsHandler) updateSettings(c *fiber.Ctx) error {
	var in map[string]json.RawMessage
	if err := BindJSON(c, &in); err != nil {
		return err
	}
	patch := notifications.Patch{}
	var changes notifications.Changes
	for k, raw := range in {
		if k == notifications.ReminderTimeKey {
			var v string
			if err := json.Unmarshal(raw, &v); err != nil || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
				return core.Invalid("invalid_request", "httpapi.fieldString", "field %s must be a string", k)
			}
			t, err := notifications.ParseReminderTime(v)
			if err != nil {
				return err
			}
			changes.ReminderTime = &t
			continue
		}
		key, err := notifications.ParseSetting(k)
		if err != nil {
			return err
		}
		switch string(bytes.TrimSpace(raw)) {
		case "true":
			patch[key] = true
		case "false":
			patch[key] = false
		default:
			return core.Invalid("invalid_request", "httpapi.fieldBoolean", "field %s must be a boolean", k)
		}
	}
	changes.Switches = patch
	s, err := h.svc.UpdateSettings(c.UserContext(), c.Params("userId"), changes)
	if err != nil {
		return err
	}
	return c.JSON(settingsReply{Success: true, Settings: toSettingsJSON(s), Message: say(c, "httpapi.notificationSettingsUpdated", "notification settings updated")})
}

func (h *notificationsHandler) sendTest(c *fiber.Ctx) error {
	var in struct {
		Title    string `json:"title"`
		Message  string `json:"message"`
		Category string `json:"category"`
	}
	if err := BindJSON(c, &in); err != nil {
		return err
	}
	res, err := h.svc.Notify(c.UserContext(), c.Params("userId"), in.Category, in.Title, in.Message)
	if err != nil {
		return err
	}
	yes := true
	out := testReply{Success: true, Message: testMessage(c, res), NotificationType: string(res.Notification.Category),
		Saved: true, Sent: res.Sent, Total: res.Total, Action: string(res.Action())}
	if res.OptedIn {
		out.UserOptedIn = &yes
	} else {
		out.UserOptedOut = &yes
	}
	return c.JSON(out)
}

// testMessage says what became of a test notification.
func testMessage(c *fiber.Ctx, r notifications.Result) string {
	switch {
	case r.Paused:
		return say(c, "httpapi.notificationSavedNotPushedAll", "notification saved; not pushed: all notifications are paused")
	case !r.OptedIn:
		return say(c, "httpapi.notificationSavedNotPushedOff", "notification saved; not pushed: %s is off", string(r.Setting))
	case r.Total == 0:
		return say(c, "httpapi.notificationSavedNoDeviceRegistered", "notification saved; no device is registered")
	}
	return say(c, "httpapi.notificationSavedPushedDevices", "notification saved; pushed to %d of {2|%[2]d device|%[2]d devices}", r.Sent, r.Total)
}

func (h *notificationsHandler) list(c *fiber.Ctx) error {
	page, err := parsePage(c)
	if err != nil {
		return err
	}
	unreadOnly := false
	switch v := c.Query("unreadOnly"); v {
	case "", "false":
	case "true":
		unreadOnly = true
	default:
		return core.Invalid("invalid_request", "httpapi.unreadOnlyTrueFalse", "unreadOnly must be true or false")
	}
	ns, next, err := h.svc.List(c.UserContext(), c.Params("userId"), unreadOnly, page)
	if err != nil {
		return err
	}
	setNextCursor(c, next)
	return c.JSON(notificationsReply{Success: true, Notifications: toNotificationsJSON(ns)})
}

func (h *notificationsHandler) unread(c *fiber.Ctx) error {
	n, err := h.svc.UnreadCount(c.UserContext(), c.Params("userId"))
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"success": true, "unreadCount": n})
}

// markRead takes {notificationId} or {markAll: true}, never both.
func (h *notificationsHandler) markRead(c *fiber.Ctx) error {
	var in struct {
		NotificationID *string `json:"notificationId"`
		MarkAll        *bool   `json:"markAll"`
	}
	if err := BindJSON(c, &in); err != nil {
		return err
	}
	ctx, userID := c.UserContext(), c.Params("userId")
	markAll := in.MarkAll != nil && *in.MarkAll
	switch {
	case markAll && in.NotificationID != nil:
		return core.Invalid("invalid_request", "httpapi.sendEitherNotificationIdMarkAllTrue", "send either notificationId or markAll: true, not both")
	case markAll:
		n, err := h.svc.MarkAllRead(ctx, userID)
		if err != nil {
			return err
		}
		msg := say(c, "httpapi.notificationsMarkedRead", "{1|%[1]d notification|%[1]d notifications} marked as read", n)
		return c.JSON(fiber.Map{"success": true, "message": msg, "count": n})
	case in.NotificationID != nil:
		if err := h.svc.MarkRead(ctx, userID, *in.NotificationID); err != nil {
			return err
		}
		return c.JSON(fiber.Map{"success": true, "message": say(c, "httpapi.notificationMarkedRead", "notification marked as read")})
	}
	return core.Invalid("invalid_request", "httpapi.sendNotificationIdMarkAllTrue", "send notificationId, or markAll: true")
}

func (h *notificationsHandler) registerDevice(c *fiber.Ctx) error {
	var in struct {
		Token    string `json:"token"`
		Platform string `json:"platform"`
		Provider string `json:"provider"`
	}
	if err := BindJSON(c, &in); err != nil {
		return err
	}
	d, err := h.svc.RegisterDevice(c.UserContext(), c.Params("userId"),
		notifications.Registration{Token: in.Token, Platform: in.Platform, Provider: in.Provider})
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"success": true, "deviceId": d.ID})
}

func (h *notificationsHandler) devices(c *fiber.Ctx) error {
	ds, err := h.svc.Devices(c.UserContext(), c.Params("userId"))
	if err != nil {
		return err
	}
	return c.JSON(devicesReply{Success: true, Devices: toDevicesJSON(ds)})
}

func (h *notificationsHandler) removeDevice(c *fiber.Ctx) error {
	if err := h.svc.RemoveDevice(c.UserContext(), c.Params("userId"), c.Params("deviceId")); err != nil {
		return err
	}
	return c.JSON(fiber.Map{"success": true})
}
