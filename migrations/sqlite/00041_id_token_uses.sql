-- +goose Up
-- id_token_uses: each provider ID token that signed in, by the SHA-256
-- (hex) of the token, kept until the token's own expiry (expires_at,
-- milliseconds): a token serves one sign-in, on every process. The primary
-- key refuses a second use; the purge runs by ix_id_token_uses_expiry.
CREATE TABLE id_token_uses (
  token_hash TEXT    NOT NULL PRIMARY KEY,
  expires_at INTEGER NOT NULL
);
CREATE INDEX ix_id_token_uses_expiry ON id_token_uses (expires_at);

-- +goose Down
DROP TABLE id_token_uses;
