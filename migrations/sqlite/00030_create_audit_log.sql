-- +goose Up
-- The administrator console's audit log: every change made in the console,
-- written before the change (outcome 'pending') and completed after it.
-- The console lists it newest first from an (at, id) cursor.
CREATE TABLE audit_log (
  id           TEXT    NOT NULL PRIMARY KEY,
  actor_id     TEXT    NOT NULL,
  actor        TEXT    NOT NULL,
  action       TEXT    NOT NULL,
  target       TEXT    NOT NULL,
  before_state TEXT    NOT NULL,
  after_state  TEXT    NOT NULL,
  outcome      TEXT    NOT NULL,
  at           INTEGER NOT NULL
);
CREATE INDEX idx_audit_log_at ON audit_log (at, id);

-- +goose Down
DROP TABLE audit_log;
