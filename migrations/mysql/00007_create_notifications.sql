-- +goose Up
-- Notification settings, one row per user who changed them (none: defaults).
-- While pause_all is true every per-type column is stored false, and resume
-- lists (comma-separated setting keys) the types that un-pausing turns back on.
CREATE TABLE notification_settings (
  user_id             VARCHAR(36)  NOT NULL PRIMARY KEY,
  pause_all           BOOLEAN      NOT NULL,
  daily_reminders     BOOLEAN      NOT NULL,
  mood_updates        BOOLEAN      NOT NULL,
  habits_reminder     BOOLEAN      NOT NULL,
  events_notification BOOLEAN      NOT NULL,
  games_notification  BOOLEAN      NOT NULL,
  partner_activity    BOOLEAN      NOT NULL,
  system_updates      BOOLEAN      NOT NULL,
  resume              VARCHAR(255) NOT NULL DEFAULT '',
  updated_at          BIGINT       NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- The inbox: listed newest first (all, or unread only), counted and marked
-- read by user.
CREATE TABLE notifications (
  id         VARCHAR(36)   NOT NULL PRIMARY KEY,
  user_id    VARCHAR(36)   NOT NULL,
  title      VARCHAR(200)  NOT NULL,
  message    VARCHAR(2000) NOT NULL,
  category   VARCHAR(32)   NOT NULL,
  is_read    BOOLEAN       NOT NULL,
  created_at BIGINT        NOT NULL,
  KEY idx_notifications_user (user_id, created_at, id),
  KEY idx_notifications_user_read (user_id, is_read, created_at, id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- Push devices: a token is one device (unique), listed per user by the last
-- registration. Tokens are ASCII, so 1024 characters stay a short key.
CREATE TABLE notification_devices (
  id         VARCHAR(36)   NOT NULL PRIMARY KEY,
  user_id    VARCHAR(36)   NOT NULL,
  token      VARCHAR(1024) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  platform   VARCHAR(16)   NOT NULL,
  provider   VARCHAR(16)   NOT NULL,
  created_at BIGINT        NOT NULL,
  updated_at BIGINT        NOT NULL,
  UNIQUE KEY uq_notification_devices_token (token),
  KEY idx_notification_devices_user (user_id, updated_at, id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- +goose Down
DROP TABLE notification_devices;
DROP TABLE notifications;
DROP TABLE notification_settings;
