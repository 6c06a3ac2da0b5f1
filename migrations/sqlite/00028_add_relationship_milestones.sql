-- +goose Up
-- When the milestone job next looks at an active relationship (UTC ms),
-- NULL once ended: the job reads the due ones through
-- idx_relationships_milestone, earliest first, and moves each by its key
-- (compare-and-set on milestone_at).
ALTER TABLE relationships ADD COLUMN milestone_at INTEGER NULL;
CREATE INDEX idx_relationships_milestone ON relationships (milestone_at, id);

-- Relationships active before this version: due at once, so the job's
-- first pass computes each one's next morning with a milestone.
UPDATE relationships SET milestone_at = 0 WHERE is_active;

-- One row per user, relationship and local date (YYYY-MM-DD) told of a
-- milestone, inserted before the push: the key makes it go out once across
-- processes. Deleted with the relationship.
CREATE TABLE milestone_pushes (
  relationship_id TEXT    NOT NULL,
  user_id         TEXT    NOT NULL,
  day             TEXT    NOT NULL,
  sent_at         INTEGER NOT NULL,
  PRIMARY KEY (relationship_id, user_id, day)
);

-- +goose Down
DROP TABLE milestone_pushes;
DROP INDEX idx_relationships_milestone;
ALTER TABLE relationships DROP COLUMN milestone_at;
