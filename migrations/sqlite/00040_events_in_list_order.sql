-- +goose Up
-- A user's events are kept in list order (issue 36): the table is keyed by
-- (user_id, start_date, id), so a page of the list, a date range and a
-- user's purge read one range of the table itself. Before, each row of a
-- list was found in idx_events_user_start and then looked up by its id in
-- the table: 8% of a list's CPU under load went to those lookups
-- (sqlite3BtreeIndexMoveto), and a list served 15% more per CPU second
-- without them (BENCHMARKS.md, issue 36). The id stays unique through
-- uq_events_id, which the single read, update and delete use. A write
-- still touches two b-trees.
CREATE TABLE events_in_order (
  id           TEXT    NOT NULL,
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
  updated_at   INTEGER NOT NULL,
  remind_at    INTEGER NULL,
  PRIMARY KEY (user_id, start_date, id)
) WITHOUT ROWID;
INSERT INTO events_in_order (id, user_id, title, description, start_date, end_date, start_time, end_time, location,
  event_type, importance, notify, participants, created_at, updated_at, remind_at)
SELECT id, user_id, title, description, start_date, end_date, start_time, end_time, location,
  event_type, importance, notify, participants, created_at, updated_at, remind_at FROM events;
DROP TABLE events;
ALTER TABLE events_in_order RENAME TO events;
CREATE UNIQUE INDEX uq_events_id ON events (id);
CREATE INDEX idx_events_remind ON events (remind_at) WHERE remind_at IS NOT NULL;

-- +goose Down
CREATE TABLE events_by_id (
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
  updated_at   INTEGER NOT NULL,
  remind_at    INTEGER NULL
) WITHOUT ROWID;
INSERT INTO events_by_id (id, user_id, title, description, start_date, end_date, start_time, end_time, location,
  event_type, importance, notify, participants, created_at, updated_at, remind_at)
SELECT id, user_id, title, description, start_date, end_date, start_time, end_time, location,
  event_type, importance, notify, participants, created_at, updated_at, remind_at FROM events;
DROP TABLE events;
ALTER TABLE events_by_id RENAME TO events;
CREATE INDEX idx_events_user_start ON events (user_id, start_date, id);
CREATE INDEX idx_events_remind ON events (remind_at) WHERE remind_at IS NOT NULL;
