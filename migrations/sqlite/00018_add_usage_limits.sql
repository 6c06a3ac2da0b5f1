-- +goose Up
-- The limits of TANDEM_LIMITS_FREE / TANDEM_LIMITS_PREMIUM are enforced:
-- "storage" against the sum of the sizes of a user's images (size: bytes of
-- the image's file; 0 for images stored before this migration), read
-- through idx_images_user_size; "memories" against the count of a user's
-- memories (idx_memories_user_date). A checked write first takes the user's
-- row of memory_owners or image_owners (inserted on first use, deleted with
-- the account): on SQLite transactions are serialized anyway, the rows keep
-- one code path with MySQL.
ALTER TABLE images ADD COLUMN size INTEGER NOT NULL DEFAULT 0;
CREATE INDEX idx_images_user_size ON images (user_id, size);
CREATE TABLE image_owners (
  user_id TEXT NOT NULL PRIMARY KEY
);
CREATE TABLE memory_owners (
  user_id TEXT NOT NULL PRIMARY KEY
);

-- +goose Down
DROP TABLE memory_owners;
DROP TABLE image_owners;
DROP INDEX idx_images_user_size;
ALTER TABLE images DROP COLUMN size;
