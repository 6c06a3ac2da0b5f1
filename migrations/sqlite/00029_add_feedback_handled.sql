-- +goose Up
-- Feedback an administrator has dealt with (the console's "mark handled"):
-- when and by whom (their e-mail). The console lists open or handled
-- messages newest first: idx_feedback_handled serves both from a cursor.
ALTER TABLE feedback ADD COLUMN handled INTEGER NOT NULL DEFAULT 0;
ALTER TABLE feedback ADD COLUMN handled_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE feedback ADD COLUMN handled_by TEXT NOT NULL DEFAULT '';
CREATE INDEX idx_feedback_handled ON feedback (handled, created_at, id);

-- +goose Down
DROP INDEX idx_feedback_handled;
ALTER TABLE feedback DROP COLUMN handled_by;
ALTER TABLE feedback DROP COLUMN handled_at;
ALTER TABLE feedback DROP COLUMN handled;
