-- +goose Up
-- The administrator console's audit log: every change made in the console,
-- written before the change (outcome 'pending') and completed after it.
-- The console lists it newest first from an (at, id) cursor.
CREATE TABLE audit_log (
  id       VARCHAR(36)  NOT NULL PRIMARY KEY,
  actor_id VARCHAR(36)  NOT NULL,
  actor    VARCHAR(254) NOT NULL,
  action   VARCHAR(200) NOT NULL,
  target   VARCHAR(200) NOT NULL,
  before_state MEDIUMTEXT NOT NULL,
  after_state  MEDIUMTEXT NOT NULL,
  outcome  VARCHAR(16)  NOT NULL,
  at       BIGINT       NOT NULL,
  KEY idx_audit_log_at (at, id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- +goose Down
DROP TABLE audit_log;
