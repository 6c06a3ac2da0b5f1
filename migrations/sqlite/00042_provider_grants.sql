-- +goose Up
-- Sign in with Apple's grants (modules/accounts grants.go). refresh_token
-- is the identity's grant, sealed (AES-GCM under TANDEM_ENCRYPTION_KEY;
-- '' when none was redeemed). provider_revocations queues the grants of
-- removed identities, moved there in the transaction that removes them,
-- until the provider took their revocation: no user_id key, for the row
-- outlives its account. Paths: the due revocations in order
-- (idx_provider_revocations_due); a claim and every later write by id and
-- claim.
ALTER TABLE account_identities ADD COLUMN refresh_token TEXT NOT NULL DEFAULT '';
CREATE TABLE provider_revocations (
  id              TEXT    NOT NULL PRIMARY KEY,
  provider        TEXT    NOT NULL,
  subject         TEXT    NOT NULL,
  user_id         TEXT    NOT NULL,
  token           TEXT    NOT NULL,
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL DEFAULT 0,
  claimed_until   INTEGER NOT NULL DEFAULT 0,
  claim           TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX idx_provider_revocations_due ON provider_revocations (next_attempt_at, id);

-- +goose Down
DROP TABLE provider_revocations;
ALTER TABLE account_identities DROP COLUMN refresh_token;
