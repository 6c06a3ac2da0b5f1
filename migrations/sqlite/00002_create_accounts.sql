-- +goose Up
CREATE TABLE accounts (
  id            TEXT    NOT NULL PRIMARY KEY,
  email         TEXT    NOT NULL COLLATE NOCASE,
  password_hash TEXT    NOT NULL,
  verified      INTEGER NOT NULL DEFAULT 0,
  is_admin      INTEGER NOT NULL DEFAULT 0,
  display_name  TEXT    NOT NULL DEFAULT '',
  timezone      TEXT    NOT NULL DEFAULT '',
  created_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL
);
CREATE UNIQUE INDEX uq_accounts_email ON accounts (email);

CREATE TABLE auth_codes (
  user_id     TEXT    NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  purpose     TEXT    NOT NULL,
  code_hash   TEXT    NOT NULL,
  expires_at  INTEGER NOT NULL,
  attempts    INTEGER NOT NULL DEFAULT 0,
  verified_at INTEGER NOT NULL DEFAULT 0,
  created_at  INTEGER NOT NULL,
  PRIMARY KEY (user_id, purpose)
);

CREATE TABLE auth_tokens (
  token_hash TEXT    NOT NULL PRIMARY KEY,
  user_id    TEXT    NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX idx_auth_tokens_user ON auth_tokens (user_id);
CREATE INDEX idx_auth_tokens_expires ON auth_tokens (expires_at);

-- +goose Down
DROP TABLE auth_tokens;
DROP TABLE auth_codes;
DROP TABLE accounts;
