-- +goose Up
-- Feedback an administrator has dealt with (the console's "mark handled"):
-- when and by whom (their e-mail). The console lists open or handled
-- messages newest first: idx_feedback_handled serves both from a cursor.
ALTER TABLE feedback
  ADD COLUMN handled    BOOLEAN      NOT NULL DEFAULT FALSE,
  ADD COLUMN handled_at BIGINT       NOT NULL DEFAULT 0,
  ADD COLUMN handled_by VARCHAR(254) NOT NULL DEFAULT '',
  ADD INDEX idx_feedback_handled (handled, created_at, id);

-- +goose Down
ALTER TABLE feedback
  DROP INDEX idx_feedback_handled,
  DROP COLUMN handled, DROP COLUMN handled_at, DROP COLUMN handled_by;
