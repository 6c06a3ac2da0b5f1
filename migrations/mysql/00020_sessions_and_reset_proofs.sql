-- +goose Up
-- Reset proofs: the verify step hands out a token; only its hash is kept.
ALTER TABLE auth_codes
  ADD COLUMN proof_hash CHAR(64) NOT NULL DEFAULT '',
  ADD COLUMN proof_expires_at BIGINT NOT NULL DEFAULT 0,
  ADD KEY idx_auth_codes_expires (expires_at);

-- Sessions: an id the user may see and delete by, the user agent, last use.
ALTER TABLE auth_tokens
  ADD COLUMN id VARCHAR(36) NOT NULL DEFAULT '',
  ADD COLUMN user_agent VARCHAR(256) NOT NULL DEFAULT '',
  ADD COLUMN last_used_at BIGINT NOT NULL DEFAULT 0;
UPDATE auth_tokens SET id = UUID() WHERE id = '';
ALTER TABLE auth_tokens
  ADD UNIQUE KEY uq_auth_tokens_id (id),
  ADD KEY idx_auth_tokens_user_created (user_id, created_at),
  DROP KEY idx_auth_tokens_user;

-- +goose Down
ALTER TABLE auth_tokens
  ADD KEY idx_auth_tokens_user (user_id),
  DROP KEY idx_auth_tokens_user_created,
  DROP KEY uq_auth_tokens_id,
  DROP COLUMN last_used_at,
  DROP COLUMN user_agent,
  DROP COLUMN id;
ALTER TABLE auth_codes
  DROP KEY idx_auth_codes_expires,
  DROP COLUMN proof_expires_at,
  DROP COLUMN proof_hash;
