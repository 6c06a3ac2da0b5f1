-- +goose Up
CREATE TABLE partnerships (
  id         TEXT    NOT NULL PRIMARY KEY,
  user_a     TEXT    NOT NULL,
  user_b     TEXT    NOT NULL,
  created_at INTEGER NOT NULL
);

-- One partnership per user, whichever flow made it: the member is the key, so
-- a second partnership fails on it inside the creating transaction.
CREATE TABLE partnership_members (
  user_id        TEXT NOT NULL PRIMARY KEY,
  partnership_id TEXT NOT NULL REFERENCES partnerships (id) ON DELETE CASCADE,
  partner_id     TEXT NOT NULL
);
CREATE INDEX idx_partnership_members_partnership ON partnership_members (partnership_id);

-- Connection codes are chosen by the client and compared exactly (BINARY).
CREATE TABLE partner_connections (
  user_id    TEXT    NOT NULL PRIMARY KEY,
  id         TEXT    NOT NULL,
  code       TEXT    NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX uq_partner_connections_code ON partner_connections (code);

CREATE TABLE pairing_codes (
  user_id    TEXT    NOT NULL PRIMARY KEY,
  code       TEXT    NOT NULL,
  expires_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX uq_pairing_codes_code ON pairing_codes (code);

-- from_user submitted to_user's code and waits; one outgoing request per user.
CREATE TABLE pairing_requests (
  from_user  TEXT    NOT NULL PRIMARY KEY,
  to_user    TEXT    NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX idx_pairing_requests_to ON pairing_requests (to_user, created_at);

-- +goose Down
DROP TABLE pairing_requests;
DROP TABLE pairing_codes;
DROP TABLE partner_connections;
DROP TABLE partnership_members;
DROP TABLE partnerships;
