-- +goose Up
-- Uploaded images, each owned by user_id. blob_key is the file's key in the
-- blob store (u/<userId>/<random>.<ext>); it is unique, so a file belongs to
-- exactly one image and is deleted with it. url is fixed at upload. seq is
-- the position in the upload, so a group reads in the order it was sent.
-- Query paths: by id (the key); by blob_key (GET /files, PUT's key check);
-- a user's newest-first pages through idx_images_user_created (also purge);
-- a group through idx_images_user_group.
CREATE TABLE images (
  id         TEXT    NOT NULL PRIMARY KEY,
  user_id    TEXT    NOT NULL,
  group_id   TEXT    NOT NULL,
  seq        INTEGER NOT NULL,
  blob_key   TEXT    NOT NULL,
  url        TEXT    NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX uq_images_blob_key ON images (blob_key);
CREATE INDEX idx_images_user_created ON images (user_id, created_at, id);
CREATE INDEX idx_images_user_group ON images (user_id, group_id, seq);

-- +goose Down
DROP TABLE images;
