-- +goose Up
-- Notification settings, one row per user who changed them (none: defaults).
-- While pause_all is true every per-type column is stored false, and resume
-- lists (comma-separated setting keys) the types that un-pausing turns back on.
CREATE TABLE notification_settings (
  user_id             TEXT    NOT NULL PRIMARY KEY,
  pause_all           INTEGER NOT NULL,
  daily_reminders     INTEGER NOT NULL,
  mood_updates        INTEGER NOT NULL,
  habits_reminder     INTEGER NOT NULL,
  events_notification INTEGER NOT NULL,
  games_notification  INTEGER NOT NULL,
  partner_activity    INTEGER NOT NULL,
  system_updates      INTEGER NOT NULL,
  resume              TEXT    NOT NULL DEFAULT '',
  updated_at          INTEGER NOT NULL
);

-- The inbox: listed newest first (all, or unread only), counted and marked
-- read by user.
CREATE TABLE notifications (
  id         TEXT    NOT NULL PRIMARY KEY,
  user_id    TEXT    NOT NULL,
  title      TEXT    NOT NULL,
  message    TEXT    NOT NULL,
  category   TEXT    NOT NULL,
  is_read    INTEGER NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX idx_notifications_user ON notifications (user_id, created_at, id);
CREATE INDEX idx_notifications_user_read ON notifications (user_id, is_read, created_at, id);

-- Push devices: a token is one device (unique), listed per user by the last
-- registration.
CREATE TABLE notification_devices (
  id         TEXT    NOT NULL PRIMARY KEY,
  user_id    TEXT    NOT NULL,
  token      TEXT    NOT NULL,
  platform   TEXT    NOT NULL,
  provider   TEXT    NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX uq_notification_devices_token ON notification_devices (token);
CREATE INDEX idx_notification_devices_user ON notification_devices (user_id, updated_at, id);

-- +goose Down
DROP TABLE notification_devices;
DROP TABLE notifications;
DROP TABLE notification_settings;
