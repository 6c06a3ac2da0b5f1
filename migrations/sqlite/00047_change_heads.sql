-- +goose Up
-- The change feed's per-reader heads (issue 47): see the MySQL migration.
-- SQLite has one writer at a time, so its changes' ids are in commit order
-- anyway; the row is bumped the same way on both databases.
CREATE TABLE change_heads (
  user_id TEXT    NOT NULL PRIMARY KEY,
  writes  INTEGER NOT NULL
);

-- +goose Down
DROP TABLE change_heads;
