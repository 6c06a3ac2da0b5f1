-- +goose Up
-- Partner activity is coalesced per (recipient user_id, actor from_user_id,
-- kind): notification_id is the inbox entry that collects it while unread,
-- with entry_count activities so far, and pushed_at (ms, 0: never) the last
-- push, so that one is sent at most every 10 minutes. Read by its key;
-- purged by user_id (the key's prefix) and by from_user_id.
CREATE TABLE notification_activity (
  user_id         TEXT    NOT NULL,
  from_user_id    TEXT    NOT NULL,
  kind            TEXT    NOT NULL,
  notification_id TEXT    NOT NULL,
  entry_count     INTEGER NOT NULL,
  pushed_at       INTEGER NOT NULL,
  PRIMARY KEY (user_id, from_user_id, kind)
);
CREATE INDEX idx_notification_activity_from ON notification_activity (from_user_id);

-- +goose Down
DROP TABLE notification_activity;
