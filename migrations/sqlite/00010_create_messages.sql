-- +goose Up
-- Messages. scope is the thread: the partnership's id while the author was
-- paired, else 'user:' + the author's id (the solo thread); a new
-- partnership starts a new, empty thread. body holds at most 4,000
-- characters; created_at is milliseconds.
-- Query paths: a thread newest first through idx_messages_scope; a user's
-- own messages (export, purge) through idx_messages_author; the solo
-- thread's purge through idx_messages_scope.
CREATE TABLE messages (
  id         TEXT    NOT NULL PRIMARY KEY,
  scope      TEXT    NOT NULL,
  author_id  TEXT    NOT NULL,
  body       TEXT    NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX idx_messages_scope ON messages (scope, created_at, id);
CREATE INDEX idx_messages_author ON messages (author_id, created_at, id);

-- +goose Down
DROP TABLE messages;
