-- +goose Up
-- Feedback messages (at most 5000 characters). Query paths: a user's own
-- history newest first (idx_feedback_user, also export and purge) and the
-- administrators' list of everyone's, newest first (idx_feedback_created),
-- both paged from a (created_at, id) cursor.
CREATE TABLE feedback (
  id         TEXT    NOT NULL PRIMARY KEY,
  user_id    TEXT    NOT NULL,
  message    TEXT    NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX idx_feedback_user ON feedback (user_id, created_at, id);
CREATE INDEX idx_feedback_created ON feedback (created_at, id);

-- +goose Down
DROP TABLE feedback;
