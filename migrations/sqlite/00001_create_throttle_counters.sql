-- +goose Up
CREATE TABLE throttle_counters (
  k          TEXT    NOT NULL,
  bucket     INTEGER NOT NULL,
  hits       INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (k, bucket)
);
CREATE INDEX idx_throttle_expires ON throttle_counters (expires_at);

-- +goose Down
DROP TABLE throttle_counters;
