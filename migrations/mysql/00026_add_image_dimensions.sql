-- +goose Up
-- What an upload's processing found: the upright size in pixels and a
-- BlurHash placeholder (at most ~30 characters for 4x3 components). Images
-- stored before keep 0, 0 and ''.
ALTER TABLE images
  ADD COLUMN width    INT         NOT NULL DEFAULT 0,
  ADD COLUMN height   INT         NOT NULL DEFAULT 0,
  ADD COLUMN blurhash VARCHAR(64) NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE images DROP COLUMN width, DROP COLUMN height, DROP COLUMN blurhash;
