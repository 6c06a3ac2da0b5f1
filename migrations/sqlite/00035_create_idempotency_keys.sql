-- +goose Up
-- The Idempotency-Key of a create request, per user, with the first
-- completed answer for 24 hours (modules/idempotency). key_hash is the
-- SHA-256 of the key; fingerprint the SHA-256 of method, path and body.
-- A running claim expires at the end of its lease, a done one after 24
-- hours. Query paths: the claim, finish and release by the primary key,
-- the account purge by its prefix, the expiry purge by idx_idempotency_expires.
CREATE TABLE idempotency_keys (
  user_id      TEXT    NOT NULL,
  key_hash     TEXT    NOT NULL,
  claim_id     TEXT    NOT NULL,
  fingerprint  TEXT    NOT NULL,
  state        TEXT    NOT NULL,
  status       INTEGER NOT NULL,
  content_type TEXT    NOT NULL,
  body         BLOB    NOT NULL,
  created_at   INTEGER NOT NULL,
  expires_at   INTEGER NOT NULL,
  PRIMARY KEY (user_id, key_hash)
);
CREATE INDEX idx_idempotency_expires ON idempotency_keys (expires_at);

-- +goose Down
DROP TABLE idempotency_keys;
