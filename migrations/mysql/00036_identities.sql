-- +goose Up
-- Sign in with Apple and Google: each provider's subject belongs to one
-- account (modules/accounts identities.go). Query paths: a sign-in by the
-- primary key; the account's list, unlink and deletion by
-- idx_account_identities_user.
CREATE TABLE account_identities (
  provider   VARCHAR(16)  NOT NULL,
  subject    VARCHAR(255) NOT NULL,
  user_id    VARCHAR(36)  NOT NULL,
  email      VARCHAR(254) NOT NULL DEFAULT '',
  created_at BIGINT       NOT NULL,
  PRIMARY KEY (provider, subject),
  KEY idx_account_identities_user (user_id, provider)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- +goose Down
DROP TABLE account_identities;
