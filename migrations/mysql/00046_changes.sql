-- +goose Up
-- The durable change feed (issue 47, modules/changes): one row per change
-- of a record for one reader (user_id), inserted in the transaction of the
-- write. id is the feed's position (AUTO_INCREMENT). data is the JSON of
-- the reader's REST read for a put, NULL for a delete. Paths: a reader's
-- feed after a position (idx_changes_user: one index range); the purge by
-- age (idx_changes_created).
CREATE TABLE changes (
  id         BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
  user_id    VARCHAR(36)  NOT NULL,
  kind       VARCHAR(16)  CHARACTER SET ascii NOT NULL,
  record_id  VARCHAR(64)  NOT NULL,
  op         VARCHAR(8)   CHARACTER SET ascii NOT NULL,
  data       MEDIUMTEXT,
  created_at BIGINT       NOT NULL,
  KEY idx_changes_user (user_id, id),
  KEY idx_changes_created (created_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- +goose Down
DROP TABLE changes;
