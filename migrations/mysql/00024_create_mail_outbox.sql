-- +goose Up
-- Mail waiting to be sent (accounts' outbox): queued in the transaction that
-- stores its code, deleted once the relay took it, when its code expires
-- unsent (not_after), when a new code replaces it and with the account. The
-- body holds the code in clear until then. Paths: the due mail in order
-- (idx_mail_outbox_due), the expired mail (idx_mail_outbox_expiry), a user's
-- mail of one kind and all of it (idx_mail_outbox_user); a claim and every
-- later write go by id and claim.
CREATE TABLE mail_outbox (
  id              VARCHAR(36)  NOT NULL PRIMARY KEY,
  user_id         VARCHAR(36)  NOT NULL,
  kind            VARCHAR(16)  NOT NULL,
  recipient       VARCHAR(254) NOT NULL,
  subject         VARCHAR(255) NOT NULL,
  body            TEXT         NOT NULL,
  created_at      BIGINT       NOT NULL,
  not_after       BIGINT       NOT NULL,
  attempts        INT          NOT NULL DEFAULT 0,
  next_attempt_at BIGINT       NOT NULL,
  claimed_until   BIGINT       NOT NULL DEFAULT 0,
  claim           VARCHAR(36)  CHARACTER SET ascii COLLATE ascii_bin NOT NULL DEFAULT '',
  KEY idx_mail_outbox_due (next_attempt_at, id),
  KEY idx_mail_outbox_expiry (not_after),
  KEY idx_mail_outbox_user (user_id, kind),
  CONSTRAINT fk_mail_outbox_account FOREIGN KEY (user_id) REFERENCES accounts (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- +goose Down
DROP TABLE mail_outbox;
