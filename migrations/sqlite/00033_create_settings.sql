-- +goose Up
-- Values every process of a deployment shares, by name; today the
-- console's secret when TANDEM_CONSOLE_SECRET is unset. A value is written
-- once, by whichever process comes first (insert if absent), and read back.
CREATE TABLE settings (
  name  TEXT NOT NULL PRIMARY KEY,
  value TEXT NOT NULL
);

-- +goose Down
DROP TABLE settings;
