-- +goose Up
-- Messages. scope is the thread: the partnership's id while the author was
-- paired, else 'user:' + the author's id (the solo thread); a new
-- partnership starts a new, empty thread. body holds at most 4,000
-- characters; created_at is milliseconds.
-- Query paths: a thread newest first through idx_messages_scope; a user's
-- own messages (export, purge) through idx_messages_author; the solo
-- thread's purge through idx_messages_scope.
CREATE TABLE messages (
  id         VARCHAR(36) NOT NULL PRIMARY KEY,
  scope      VARCHAR(64) NOT NULL,
  author_id  VARCHAR(36) NOT NULL,
  body       TEXT        NOT NULL,
  created_at BIGINT      NOT NULL,
  KEY idx_messages_scope (scope, created_at, id),
  KEY idx_messages_author (author_id, created_at, id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- +goose Down
DROP TABLE messages;
