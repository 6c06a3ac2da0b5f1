-- +goose Up
-- Reset proofs: the verify step hands out a token; only its hash is kept.
ALTER TABLE auth_codes ADD COLUMN proof_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE auth_codes ADD COLUMN proof_expires_at INTEGER NOT NULL DEFAULT 0;
CREATE INDEX idx_auth_codes_expires ON auth_codes (expires_at);

-- Sessions: an id the user may see and delete by, the user agent, last use.
ALTER TABLE auth_tokens ADD COLUMN id TEXT NOT NULL DEFAULT '';
ALTER TABLE auth_tokens ADD COLUMN user_agent TEXT NOT NULL DEFAULT '';
ALTER TABLE auth_tokens ADD COLUMN last_used_at INTEGER NOT NULL DEFAULT 0;
UPDATE auth_tokens SET id = lower(hex(randomblob(16))) WHERE id = '';
CREATE UNIQUE INDEX uq_auth_tokens_id ON auth_tokens (id);
DROP INDEX idx_auth_tokens_user;
CREATE INDEX idx_auth_tokens_user_created ON auth_tokens (user_id, created_at);

-- +goose Down
DROP INDEX idx_auth_tokens_user_created;
CREATE INDEX idx_auth_tokens_user ON auth_tokens (user_id);
DROP INDEX uq_auth_tokens_id;
ALTER TABLE auth_tokens DROP COLUMN last_used_at;
ALTER TABLE auth_tokens DROP COLUMN user_agent;
ALTER TABLE auth_tokens DROP COLUMN id;
DROP INDEX idx_auth_codes_expires;
ALTER TABLE auth_codes DROP COLUMN proof_expires_at;
ALTER TABLE auth_codes DROP COLUMN proof_hash;
