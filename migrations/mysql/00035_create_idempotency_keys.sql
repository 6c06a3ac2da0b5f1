-- +goose Up
-- The Idempotency-Key of a create request, per user, with the first
-- completed answer for 24 hours (modules/idempotency). key_hash is the
-- SHA-256 of the key; fingerprint the SHA-256 of method, path and body.
-- A running claim expires at the end of its lease, a done one after 24
-- hours. Query paths: the claim, finish and release by the primary key,
-- the account purge by its prefix, the expiry purge by idx_idempotency_expires.
CREATE TABLE idempotency_keys (
  user_id      VARCHAR(36)  NOT NULL,
  key_hash     CHAR(64)     NOT NULL,
  claim_id     VARCHAR(36)  NOT NULL,
  fingerprint  VARCHAR(64)  NOT NULL,
  state        VARCHAR(8)   NOT NULL,
  status       INT          NOT NULL,
  content_type VARCHAR(100) NOT NULL,
  body         MEDIUMBLOB   NOT NULL,
  created_at   BIGINT       NOT NULL,
  expires_at   BIGINT       NOT NULL,
  PRIMARY KEY (user_id, key_hash),
  KEY idx_idempotency_expires (expires_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- +goose Down
DROP TABLE idempotency_keys;
