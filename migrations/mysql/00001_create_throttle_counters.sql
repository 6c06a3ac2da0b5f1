-- +goose Up
CREATE TABLE throttle_counters (
  k          VARCHAR(80) NOT NULL,
  bucket     BIGINT      NOT NULL,
  hits       INT         NOT NULL,
  expires_at BIGINT      NOT NULL,
  PRIMARY KEY (k, bucket),
  KEY idx_throttle_expires (expires_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- +goose Down
DROP TABLE throttle_counters;
