-- +goose Up
-- One direct subscription per user; every read is by user_id (the key).
-- Inherited premium is derived from the partner's row, never stored.
CREATE TABLE premium_subscriptions (
  user_id      TEXT    NOT NULL PRIMARY KEY,
  plan         TEXT    NOT NULL,
  start_date   INTEGER NOT NULL,
  end_date     INTEGER NOT NULL,
  is_active    INTEGER NOT NULL,
  cancelled    INTEGER NOT NULL,
  billing_id   TEXT    NOT NULL DEFAULT '',
  platform     TEXT    NOT NULL DEFAULT '',
  last_renewed INTEGER NOT NULL,
  meta         TEXT    NOT NULL,
  created_at   INTEGER NOT NULL,
  updated_at   INTEGER NOT NULL
);

-- +goose Down
DROP TABLE premium_subscriptions;
