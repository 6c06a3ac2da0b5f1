-- +goose Up
-- Values every process of a deployment shares, by name; today the
-- console's secret when TANDEM_CONSOLE_SECRET is unset. A value is written
-- once, by whichever process comes first (insert if absent), and read back.
CREATE TABLE settings (
  name  VARCHAR(64) NOT NULL PRIMARY KEY,
  value TEXT        NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- +goose Down
DROP TABLE settings;
