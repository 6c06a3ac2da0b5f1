-- +goose Up
-- Memories, each owned by user_id. memory_date is TEXT YYYY-MM-DD; images is
-- a JSON array of image addresses (at most 20 of 2048 characters).
-- created_at and updated_at are milliseconds.
-- Query paths: by (id, user_id) through the key; a user's list, date range
-- and count of one date through idx_memories_user_date, read newest date
-- first; purge through its user_id prefix.
CREATE TABLE memories (
  id          TEXT    NOT NULL PRIMARY KEY,
  user_id     TEXT    NOT NULL,
  title       TEXT    NOT NULL,
  description TEXT    NOT NULL,
  memory_date TEXT    NOT NULL,
  images      TEXT    NOT NULL,
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL
);
CREATE INDEX idx_memories_user_date ON memories (user_id, memory_date, created_at, id);

-- +goose Down
DROP TABLE memories;
