-- +goose Up
-- The daily reminder: its time of day in the user's timezone (HH:MM).
ALTER TABLE notification_settings ADD COLUMN daily_reminder_time TEXT NOT NULL DEFAULT '20:00';

-- Each user's next reminder instant (UTC ms): the job reads the due ones
-- through idx_daily_reminders_next, earliest first, and moves or clears
-- each by its key (compare-and-set on next_at).
CREATE TABLE daily_reminders (
  user_id TEXT    NOT NULL PRIMARY KEY,
  next_at INTEGER NOT NULL
);
CREATE INDEX idx_daily_reminders_next ON daily_reminders (next_at, user_id);

-- One row per user and local date (YYYY-MM-DD) reminded of, inserted
-- before the push: the key makes it go out once across processes. Purged
-- by day.
CREATE TABLE daily_reminder_days (
  user_id TEXT    NOT NULL,
  day     TEXT    NOT NULL,
  sent_at INTEGER NOT NULL,
  PRIMARY KEY (user_id, day)
);
CREATE INDEX idx_daily_reminder_days_day ON daily_reminder_days (day);

-- Users paired before this version: due at once, so the job's first pass
-- computes each one's next reminder (and reminds those whose time has come
-- today and who have not answered).
INSERT INTO daily_reminders (user_id, next_at) SELECT user_id, 0 FROM partnership_members;

-- +goose Down
DROP TABLE daily_reminder_days;
DROP TABLE daily_reminders;
ALTER TABLE notification_settings DROP COLUMN daily_reminder_time;
