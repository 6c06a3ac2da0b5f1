-- +goose Up
-- One app update policy per platform (ios, android, web). The version check
-- is a hot public path: it reads one row by the primary key, nothing else.
-- Versions are stored normalised (MAJOR.MINOR.PATCH[+BUILD]);
-- deprecation_date is milliseconds, NULL when none.
CREATE TABLE version_policies (
  platform         VARCHAR(16)    NOT NULL PRIMARY KEY,
  min_required     VARCHAR(64)    NOT NULL,
  recommended      VARCHAR(64)    NOT NULL,
  latest           VARCHAR(64)    NOT NULL,
  download_url     VARCHAR(2048)  NOT NULL,
  update_message   VARCHAR(500)   NOT NULL,
  release_notes    TEXT           NOT NULL,
  deprecation_date BIGINT         NULL,
  updated_at       BIGINT         NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- +goose Down
DROP TABLE version_policies;
