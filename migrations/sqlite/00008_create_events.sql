-- +goose Up
-- Calendar events, each owned by user_id. Dates are TEXT YYYY-MM-DD; times
-- are "HH:mm" or '' (no time of day). notify is the reminder lead time in
-- minutes before the start (NULL: no reminder): with start_date and
-- start_time it is what the notifications module needs to fire reminders.
-- participants is a JSON array of user ids.
-- Query paths: by id (the key); a user's list by date and the date-range
-- query (start_date from startDate - 366 days to endDate, a bounded range)
-- through idx_events_user_start; purge through its user_id prefix.
CREATE TABLE events (
  id           TEXT    NOT NULL PRIMARY KEY,
  user_id      TEXT    NOT NULL,
  title        TEXT    NOT NULL,
  description  TEXT    NOT NULL DEFAULT '',
  start_date   TEXT    NOT NULL,
  end_date     TEXT    NOT NULL,
  start_time   TEXT    NOT NULL DEFAULT '',
  end_time     TEXT    NOT NULL DEFAULT '',
  location     TEXT    NOT NULL DEFAULT '',
  event_type   TEXT    NOT NULL,
  importance   TEXT    NOT NULL,
  notify       INTEGER NULL,
  participants TEXT    NOT NULL,
  created_at   INTEGER NOT NULL,
  updated_at   INTEGER NOT NULL
);
CREATE INDEX idx_events_user_start ON events (user_id, start_date, id);
CREATE INDEX idx_events_user_end ON events (user_id, end_date);

-- +goose Down
DROP TABLE events;
