-- +goose Up
-- The limits of TANDEM_LIMITS_FREE / TANDEM_LIMITS_PREMIUM are enforced:
-- "storage" against the sum of the sizes of a user's images (size: bytes of
-- the image's file; 0 for images stored before this migration), read
-- through idx_images_user_size; "memories" against the count of a user's
-- memories (idx_memories_user_date). A checked write first locks the user's
-- row of memory_owners or image_owners (inserted on first use, deleted with
-- the account), so the checked writes of one user run one at a time.
ALTER TABLE images ADD COLUMN size BIGINT NOT NULL DEFAULT 0, ADD KEY idx_images_user_size (user_id, size);
CREATE TABLE image_owners (
  user_id VARCHAR(36) NOT NULL PRIMARY KEY
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE TABLE memory_owners (
  user_id VARCHAR(36) NOT NULL PRIMARY KEY
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- +goose Down
DROP TABLE memory_owners;
DROP TABLE image_owners;
ALTER TABLE images DROP KEY idx_images_user_size, DROP COLUMN size;
