-- +goose Up
-- Feedback messages (at most 5000 characters). Query paths: a user's own
-- history newest first (idx_feedback_user, also export and purge) and the
-- administrators' list of everyone's, newest first (idx_feedback_created),
-- both paged from a (created_at, id) cursor.
CREATE TABLE feedback (
  id         VARCHAR(36) NOT NULL PRIMARY KEY,
  user_id    VARCHAR(36) NOT NULL,
  message    TEXT        NOT NULL,
  created_at BIGINT      NOT NULL,
  KEY idx_feedback_user (user_id, created_at, id),
  KEY idx_feedback_created (created_at, id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- +goose Down
DROP TABLE feedback;
