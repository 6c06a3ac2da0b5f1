-- +goose Up
-- The MySQL schema's e-mail index becomes exact (utf8mb4_bin). SQLite's
-- NOCASE folds ASCII letters only, so 'víctim@' and 'victim@' differ already:
-- nothing to change; the version stays in step with MySQL's.
SELECT 1;

-- +goose Down
SELECT 1;
