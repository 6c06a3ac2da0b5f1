-- +goose Up
-- The change feed's per-reader heads (issue 47): a write that records
-- changes for a reader first bumps that reader's row here, which holds its
-- row lock until the write commits. So two writes with changes for one
-- reader take their changes' AUTO_INCREMENT ids one after the other's
-- commit: a reader's feed grows in commit order, and a reader catching up
-- never passes an id whose transaction is still open (which it would then
-- skip for good). Path: the primary key.
CREATE TABLE change_heads (
  user_id VARCHAR(36) NOT NULL PRIMARY KEY,
  writes  BIGINT      NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- +goose Down
DROP TABLE change_heads;
