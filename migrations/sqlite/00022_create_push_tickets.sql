-- +goose Up
-- Tickets of the pushes Expo accepted, kept until their receipts are read
-- (the receipt job). checked_at is when the ticket was last claimed, its
-- sent_at before the first claim: a claim reads the tickets checked at
-- least the receipt delay ago through idx_push_tickets_checked, oldest
-- first, and marks the ones it takes with its own claim token. Read back
-- and deleted by id.
CREATE TABLE push_tickets (
  id         TEXT    NOT NULL PRIMARY KEY,
  device_id  TEXT    NOT NULL,
  sent_at    INTEGER NOT NULL,
  checked_at INTEGER NOT NULL,
  claim      TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX idx_push_tickets_checked ON push_tickets (checked_at, id);

-- +goose Down
DROP TABLE push_tickets;
