-- +goose Up
-- A relationship belongs to a partnership; member_a/member_b (ordered) keep
-- the two partners for export and purge after the partnership is gone.
-- active_partnership_id is the partnership id while active and NULL once
-- ended: its unique index allows one active relationship per partnership.
CREATE TABLE relationships (
  id                    VARCHAR(36) NOT NULL PRIMARY KEY,
  partnership_id        VARCHAR(36) NOT NULL,
  member_a              VARCHAR(36) NOT NULL,
  member_b              VARCHAR(36) NOT NULL,
  start_date            DATE        NOT NULL,
  end_date              DATE        NULL,
  is_active             BOOLEAN     NOT NULL,
  active_partnership_id VARCHAR(36) AS (CASE WHEN is_active THEN partnership_id END) STORED,
  created_at            BIGINT      NOT NULL,
  updated_at            BIGINT      NOT NULL,
  UNIQUE KEY uq_relationships_active (active_partnership_id),
  KEY idx_relationships_partnership (partnership_id, is_active, created_at, id),
  KEY idx_relationships_member_a (member_a),
  KEY idx_relationships_member_b (member_b)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- +goose Down
DROP TABLE relationships;
