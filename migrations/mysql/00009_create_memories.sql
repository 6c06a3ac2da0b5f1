-- +goose Up
-- Memories, each owned by user_id. memory_date is the civil date of the
-- memory; images is a JSON array of image addresses (at most 20 of 2048
-- characters). created_at and updated_at are milliseconds.
-- Query paths: by (id, user_id) through the key; a user's list, date range
-- and count of one date through idx_memories_user_date, read newest date
-- first (a backward range scan); purge through its user_id prefix.
CREATE TABLE memories (
  id          VARCHAR(36)  NOT NULL PRIMARY KEY,
  user_id     VARCHAR(36)  NOT NULL,
  title       VARCHAR(200) NOT NULL,
  description TEXT         NOT NULL,
  memory_date DATE         NOT NULL,
  images      TEXT         NOT NULL,
  created_at  BIGINT       NOT NULL,
  updated_at  BIGINT       NOT NULL,
  KEY idx_memories_user_date (user_id, memory_date, created_at, id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- +goose Down
DROP TABLE memories;
