-- +goose Up
-- Sign in with Apple's grants (modules/accounts grants.go). refresh_token
-- is the identity's grant, sealed (AES-GCM under TANDEM_ENCRYPTION_KEY;
-- '' when none was redeemed). provider_revocations queues the grants of
-- removed identities, moved there in the transaction that removes them,
-- until the provider took their revocation: no user_id key, for the row
-- outlives its account. Paths: the due revocations in order
-- (idx_provider_revocations_due); a claim and every later write by id and
-- claim.
ALTER TABLE account_identities ADD COLUMN refresh_token VARCHAR(2048) CHARACTER SET ascii COLLATE ascii_bin NOT NULL DEFAULT '';
CREATE TABLE provider_revocations (
  id              CHAR(32)      CHARACTER SET ascii NOT NULL PRIMARY KEY,
  provider        VARCHAR(16)   NOT NULL,
  subject         VARCHAR(255)  NOT NULL,
  user_id         VARCHAR(36)   NOT NULL,
  token           VARCHAR(2048) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  attempts        INT           NOT NULL DEFAULT 0,
  next_attempt_at BIGINT        NOT NULL DEFAULT 0,
  claimed_until   BIGINT        NOT NULL DEFAULT 0,
  claim           VARCHAR(36)   CHARACTER SET ascii COLLATE ascii_bin NOT NULL DEFAULT '',
  KEY idx_provider_revocations_due (next_attempt_at, id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- +goose Down
DROP TABLE provider_revocations;
ALTER TABLE account_identities DROP COLUMN refresh_token;
