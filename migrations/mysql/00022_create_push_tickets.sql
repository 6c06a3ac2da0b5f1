-- +goose Up
-- Tickets of the pushes Expo accepted, kept until their receipts are read
-- (the receipt job). checked_at is when the ticket was last claimed, its
-- sent_at before the first claim: a claim reads the tickets checked at
-- least the receipt delay ago through idx_push_tickets_checked, oldest
-- first, and marks the ones it takes with its own claim token. Read back
-- and deleted by id. Expo's ids are ASCII (UUIDs).
CREATE TABLE push_tickets (
  id         VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY,
  device_id  VARCHAR(36) NOT NULL,
  sent_at    BIGINT      NOT NULL,
  checked_at BIGINT      NOT NULL,
  claim      VARCHAR(32) CHARACTER SET ascii COLLATE ascii_bin NOT NULL DEFAULT '',
  KEY idx_push_tickets_checked (checked_at, id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- +goose Down
DROP TABLE push_tickets;
