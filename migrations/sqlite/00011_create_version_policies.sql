-- +goose Up
-- One app update policy per platform (ios, android, web). The version check
-- is a hot public path: it reads one row by the primary key, nothing else.
-- Versions are stored normalised (MAJOR.MINOR.PATCH[+BUILD]);
-- deprecation_date is milliseconds, NULL when none.
CREATE TABLE version_policies (
  platform         TEXT    NOT NULL PRIMARY KEY,
  min_required     TEXT    NOT NULL,
  recommended      TEXT    NOT NULL,
  latest           TEXT    NOT NULL,
  download_url     TEXT    NOT NULL,
  update_message   TEXT    NOT NULL,
  release_notes    TEXT    NOT NULL,
  deprecation_date INTEGER NULL,
  updated_at       INTEGER NOT NULL
);

-- +goose Down
DROP TABLE version_policies;
