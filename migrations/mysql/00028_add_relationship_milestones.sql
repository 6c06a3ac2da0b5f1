-- +goose Up
-- When the milestone job next looks at an active relationship (UTC ms),
-- NULL once ended: the job reads the due ones through
-- idx_relationships_milestone, earliest first, and moves each by its key
-- (compare-and-set on milestone_at).
ALTER TABLE relationships
  ADD COLUMN milestone_at BIGINT NULL,
  ADD KEY idx_relationships_milestone (milestone_at, id);

-- Relationships active before this version: due at once, so the job's
-- first pass computes each one's next morning with a milestone.
UPDATE relationships SET milestone_at = 0 WHERE is_active;

-- One row per user, relationship and local date told of a milestone,
-- inserted before the push: the key makes it go out once across
-- processes. Deleted with the relationship.
CREATE TABLE milestone_pushes (
  relationship_id VARCHAR(36) NOT NULL,
  user_id         VARCHAR(36) NOT NULL,
  day             DATE        NOT NULL,
  sent_at         BIGINT      NOT NULL,
  PRIMARY KEY (relationship_id, user_id, day)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- +goose Down
DROP TABLE milestone_pushes;
ALTER TABLE relationships DROP KEY idx_relationships_milestone, DROP COLUMN milestone_at;
