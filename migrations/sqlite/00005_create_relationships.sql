-- +goose Up
-- A relationship belongs to a partnership; member_a/member_b (ordered) keep
-- the two partners for export and purge after the partnership is gone.
-- active_partnership_id is the partnership id while active and NULL once
-- ended: its unique index allows one active relationship per partnership.
CREATE TABLE relationships (
  id                    TEXT    NOT NULL PRIMARY KEY,
  partnership_id        TEXT    NOT NULL,
  member_a              TEXT    NOT NULL,
  member_b              TEXT    NOT NULL,
  start_date            TEXT    NOT NULL,
  end_date              TEXT    NULL,
  is_active             INTEGER NOT NULL,
  active_partnership_id TEXT    GENERATED ALWAYS AS (CASE WHEN is_active THEN partnership_id END) STORED,
  created_at            INTEGER NOT NULL,
  updated_at            INTEGER NOT NULL
);
CREATE UNIQUE INDEX uq_relationships_active ON relationships (active_partnership_id);
CREATE INDEX idx_relationships_partnership ON relationships (partnership_id, is_active, created_at, id);
CREATE INDEX idx_relationships_member_a ON relationships (member_a);
CREATE INDEX idx_relationships_member_b ON relationships (member_b);

-- +goose Down
DROP TABLE relationships;
