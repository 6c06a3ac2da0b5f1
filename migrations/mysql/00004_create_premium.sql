-- +goose Up
-- One direct subscription per user; every read is by user_id (the key).
-- Inherited premium is derived from the partner's row, never stored.
CREATE TABLE premium_subscriptions (
  user_id      VARCHAR(36)  NOT NULL PRIMARY KEY,
  plan         VARCHAR(64)  NOT NULL,
  start_date   BIGINT       NOT NULL,
  end_date     BIGINT       NOT NULL,
  is_active    BOOLEAN      NOT NULL,
  cancelled    BOOLEAN      NOT NULL,
  billing_id   VARCHAR(255) NOT NULL DEFAULT '',
  platform     VARCHAR(16)  NOT NULL DEFAULT '',
  last_renewed BIGINT       NOT NULL,
  meta         TEXT         NOT NULL,
  created_at   BIGINT       NOT NULL,
  updated_at   BIGINT       NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- +goose Down
DROP TABLE premium_subscriptions;
