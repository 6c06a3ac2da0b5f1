-- +goose Up
CREATE TABLE accounts (
  id            VARCHAR(36)  NOT NULL PRIMARY KEY,
  email         VARCHAR(254) NOT NULL,
  password_hash VARCHAR(255) NOT NULL,
  verified      BOOLEAN      NOT NULL DEFAULT FALSE,
  is_admin      BOOLEAN      NOT NULL DEFAULT FALSE,
  display_name  VARCHAR(100) NOT NULL DEFAULT '',
  timezone      VARCHAR(64)  NOT NULL DEFAULT '',
  created_at    BIGINT       NOT NULL,
  updated_at    BIGINT       NOT NULL,
  UNIQUE KEY uq_accounts_email (email)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE auth_codes (
  user_id     VARCHAR(36) NOT NULL,
  purpose     VARCHAR(16) NOT NULL,
  code_hash   CHAR(64)    NOT NULL,
  expires_at  BIGINT      NOT NULL,
  attempts    INT         NOT NULL DEFAULT 0,
  verified_at BIGINT      NOT NULL DEFAULT 0,
  created_at  BIGINT      NOT NULL,
  PRIMARY KEY (user_id, purpose),
  CONSTRAINT fk_auth_codes_account FOREIGN KEY (user_id) REFERENCES accounts (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE auth_tokens (
  token_hash CHAR(64)    NOT NULL PRIMARY KEY,
  user_id    VARCHAR(36) NOT NULL,
  created_at BIGINT      NOT NULL,
  expires_at BIGINT      NOT NULL,
  KEY idx_auth_tokens_user (user_id),
  KEY idx_auth_tokens_expires (expires_at),
  CONSTRAINT fk_auth_tokens_account FOREIGN KEY (user_id) REFERENCES accounts (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- +goose Down
DROP TABLE auth_tokens;
DROP TABLE auth_codes;
DROP TABLE accounts;
