-- +goose Up
-- Uploaded images, each owned by user_id. blob_key is the file's key in the
-- blob store (u/<userId>/<random>.<ext>); it is unique, so a file belongs to
-- exactly one image and is deleted with it. url is fixed at upload. seq is
-- the position in the upload, so a group reads in the order it was sent.
-- Query paths: by id (the key); by blob_key (GET /files, PUT's key check);
-- a user's newest-first pages through idx_images_user_created (also purge);
-- a group through idx_images_user_group.
CREATE TABLE images (
  id         VARCHAR(36)   NOT NULL PRIMARY KEY,
  user_id    VARCHAR(36)   NOT NULL,
  group_id   VARCHAR(36)   NOT NULL,
  seq        INT           NOT NULL,
  blob_key   VARCHAR(255)  NOT NULL,
  url        VARCHAR(1024) NOT NULL,
  created_at BIGINT        NOT NULL,
  updated_at BIGINT        NOT NULL,
  UNIQUE KEY uq_images_blob_key (blob_key),
  KEY idx_images_user_created (user_id, created_at, id),
  KEY idx_images_user_group (user_id, group_id, seq)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- +goose Down
DROP TABLE images;
