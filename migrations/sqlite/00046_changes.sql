-- +goose Up
-- The durable change feed (issue 47, modules/changes): one row per change
-- of a record for one reader (user_id), inserted in the transaction of the
-- write. id is the feed's position: AUTOINCREMENT, so never reused after a
-- purge. data is the JSON of the reader's REST read for a put, NULL for a
-- delete. Paths: a reader's feed after a position (idx_changes_user: one
-- index range); the purge by age (idx_changes_created).
CREATE TABLE changes (
  id         INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  user_id    TEXT    NOT NULL,
  kind       TEXT    NOT NULL,
  record_id  TEXT    NOT NULL,
  op         TEXT    NOT NULL,
  data       TEXT,
  created_at INTEGER NOT NULL
);
CREATE INDEX idx_changes_user ON changes (user_id, id);
CREATE INDEX idx_changes_created ON changes (created_at);

-- +goose Down
DROP TABLE changes;
