-- +goose Up
-- Sign in with Apple and Google: each provider's subject belongs to one
-- account (modules/accounts identities.go). Query paths: a sign-in by the
-- primary key; the account's list, unlink and deletion by
-- idx_account_identities_user.
CREATE TABLE account_identities (
  provider   TEXT    NOT NULL,
  subject    TEXT    NOT NULL,
  user_id    TEXT    NOT NULL,
  email      TEXT    NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL,
  PRIMARY KEY (provider, subject)
);
CREATE INDEX idx_account_identities_user ON account_identities (user_id, provider);

-- +goose Down
DROP TABLE account_identities;
