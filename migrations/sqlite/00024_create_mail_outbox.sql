-- +goose Up
-- Mail waiting to be sent (accounts' outbox): queued in the transaction that
-- stores its code, deleted once the relay took it, when its code expires
-- unsent (not_after), when a new code replaces it and with the account. The
-- body holds the code in clear until then. Paths: the due mail in order
-- (idx_mail_outbox_due), the expired mail (idx_mail_outbox_expiry), a user's
-- mail of one kind and all of it (idx_mail_outbox_user); a claim and every
-- later write go by id and claim.
CREATE TABLE mail_outbox (
  id              TEXT    NOT NULL PRIMARY KEY,
  user_id         TEXT    NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  kind            TEXT    NOT NULL,
  recipient       TEXT    NOT NULL,
  subject         TEXT    NOT NULL,
  body            TEXT    NOT NULL,
  created_at      INTEGER NOT NULL,
  not_after       INTEGER NOT NULL,
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  claimed_until   INTEGER NOT NULL DEFAULT 0,
  claim           TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX idx_mail_outbox_due ON mail_outbox (next_attempt_at, id);
CREATE INDEX idx_mail_outbox_expiry ON mail_outbox (not_after);
CREATE INDEX idx_mail_outbox_user ON mail_outbox (user_id, kind);

-- +goose Down
DROP TABLE mail_outbox;
