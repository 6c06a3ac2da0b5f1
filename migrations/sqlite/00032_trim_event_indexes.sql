-- +goose Up
-- Every event write paid for four b-trees: the table by rowid, its id key,
-- idx_events_user_end and idx_events_remind. The table is rebuilt WITHOUT
-- ROWID, keyed by its id alone; idx_events_user_end goes (no query needs
-- it: the date-range query reads a bounded range of idx_events_user_start,
-- and the planner could pick the unbounded one instead); idx_events_remind
-- keeps only the events with a reminder due, the only ones read from it.
-- SQLite create under load: +12-15% for the indexes, about +5% more for
-- the rebuild (BENCHMARKS.md, change 19).
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

-- +goose Down
CREATE TABLE events_by_rowid (
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
);
INSERT INTO events_by_rowid (id, user_id, title, description, start_date, end_date, start_time, end_time, location,
  event_type, importance, notify, participants, created_at, updated_at, remind_at)
SELECT id, user_id, title, description, start_date, end_date, start_time, end_time, location,
  event_type, importance, notify, participants, created_at, updated_at, remind_at FROM events;
DROP TABLE events;
ALTER TABLE events_by_rowid RENAME TO events;
CREATE INDEX idx_events_user_start ON events (user_id, start_date, id);
CREATE INDEX idx_events_user_end ON events (user_id, end_date);
CREATE INDEX idx_events_remind ON events (remind_at);
