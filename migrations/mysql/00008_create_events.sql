-- +goose Up
-- Calendar events, each owned by user_id. Dates are civil dates; times are
-- "HH:mm" or '' (no time of day). notify is the reminder lead time in
-- minutes before the start (NULL: no reminder): with start_date and
-- start_time it is what the notifications module needs to fire reminders.
-- participants is a JSON array of user ids.
-- Query paths: by id (the key); a user's list by date and the date-range
-- query (start_date from startDate - 366 days to endDate, a bounded range)
-- through idx_events_user_start; purge through its user_id prefix.
CREATE TABLE events (
  id           VARCHAR(36)   NOT NULL PRIMARY KEY,
  user_id      VARCHAR(36)   NOT NULL,
  title        VARCHAR(200)  NOT NULL,
  description  VARCHAR(2000) NOT NULL DEFAULT '',
  start_date   DATE          NOT NULL,
  end_date     DATE          NOT NULL,
  start_time   VARCHAR(5)    NOT NULL DEFAULT '',
  end_time     VARCHAR(5)    NOT NULL DEFAULT '',
  location     VARCHAR(200)  NOT NULL DEFAULT '',
  event_type   VARCHAR(16)   NOT NULL,
  importance   VARCHAR(8)    NOT NULL,
  notify       INT           NULL,
  participants TEXT          NOT NULL,
  created_at   BIGINT        NOT NULL,
  updated_at   BIGINT        NOT NULL,
  KEY idx_events_user_start (user_id, start_date, id),
  KEY idx_events_user_end   (user_id, end_date)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- +goose Down
DROP TABLE events;
