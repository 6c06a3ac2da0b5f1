-- +goose Up
-- What an upload's processing found: the upright size in pixels and a
-- BlurHash placeholder. Images stored before keep 0, 0 and ''.
ALTER TABLE images ADD COLUMN width INTEGER NOT NULL DEFAULT 0;
ALTER TABLE images ADD COLUMN height INTEGER NOT NULL DEFAULT 0;
ALTER TABLE images ADD COLUMN blurhash TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE images DROP COLUMN blurhash;
ALTER TABLE images DROP COLUMN height;
ALTER TABLE images DROP COLUMN width;
