-- +goose Up
-- Mood check-ins: one per user and local day. mood_date is the user's own
-- today (their profile timezone) when they checked in; uq_moods_user_date
-- makes that day one row, and a later check-in of the day upserts on it
-- (keeping id and created_at). mood is great|good|okay|low|awful; note at
-- most 280 characters ('' for none); partnership_id the partnership the
-- user was in ('' unpaired), whose partner alone reads the mood.
-- created_at and updated_at are milliseconds.
-- Query paths: a user's range of dates (the caller's list, the partner's
-- with partnership_id filtered within it, today's mood, the export) and
-- the upsert's read back through uq_moods_user_date; purge through its
-- user_id prefix.
CREATE TABLE moods (
  id             VARCHAR(36)  NOT NULL PRIMARY KEY,
  user_id        VARCHAR(36)  NOT NULL,
  mood_date      DATE         NOT NULL,
  mood           VARCHAR(8)   NOT NULL,
  note           VARCHAR(280) NOT NULL,
  partnership_id VARCHAR(36)  NOT NULL,
  created_at     BIGINT       NOT NULL,
  updated_at     BIGINT       NOT NULL,
  UNIQUE KEY uq_moods_user_date (user_id, mood_date)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- +goose Down
DROP TABLE moods;
