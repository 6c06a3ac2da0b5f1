-- +goose Up
-- Partner activity is coalesced per (recipient user_id, actor from_user_id,
-- kind): notification_id is the inbox entry that collects it while unread,
-- with entry_count activities so far, and pushed_at (ms, 0: never) the last
-- push, so that one is sent at most every 10 minutes. Read by its key;
-- purged by user_id (the key's prefix) and by from_user_id.
CREATE TABLE notification_activity (
  user_id         VARCHAR(36) NOT NULL,
  from_user_id    VARCHAR(36) NOT NULL,
  kind            VARCHAR(32) NOT NULL,
  notification_id VARCHAR(36) NOT NULL,
  entry_count     INT         NOT NULL,
  pushed_at       BIGINT      NOT NULL,
  PRIMARY KEY (user_id, from_user_id, kind),
  KEY idx_notification_activity_from (from_user_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- +goose Down
DROP TABLE notification_activity;
