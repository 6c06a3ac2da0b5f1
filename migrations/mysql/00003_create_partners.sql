-- +goose Up
CREATE TABLE partnerships (
  id         VARCHAR(36) NOT NULL PRIMARY KEY,
  user_a     VARCHAR(36) NOT NULL,
  user_b     VARCHAR(36) NOT NULL,
  created_at BIGINT      NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- One partnership per user, whichever flow made it: the member is the key, so
-- a second partnership fails on it inside the creating transaction.
CREATE TABLE partnership_members (
  user_id        VARCHAR(36) NOT NULL PRIMARY KEY,
  partnership_id VARCHAR(36) NOT NULL,
  partner_id     VARCHAR(36) NOT NULL,
  KEY idx_partnership_members_partnership (partnership_id),
  CONSTRAINT fk_partnership_members_partnership FOREIGN KEY (partnership_id) REFERENCES partnerships (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- Connection codes are chosen by the client and compared exactly (ascii_bin).
CREATE TABLE partner_connections (
  user_id    VARCHAR(36) NOT NULL PRIMARY KEY,
  id         VARCHAR(36) NOT NULL,
  code       VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  created_at BIGINT      NOT NULL,
  UNIQUE KEY uq_partner_connections_code (code)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE pairing_codes (
  user_id    VARCHAR(36) NOT NULL PRIMARY KEY,
  code       CHAR(6)     CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  expires_at BIGINT      NOT NULL,
  created_at BIGINT      NOT NULL,
  UNIQUE KEY uq_pairing_codes_code (code)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- from_user submitted to_user's code and waits; one outgoing request per user.
CREATE TABLE pairing_requests (
  from_user  VARCHAR(36) NOT NULL PRIMARY KEY,
  to_user    VARCHAR(36) NOT NULL,
  created_at BIGINT      NOT NULL,
  KEY idx_pairing_requests_to (to_user, created_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- +goose Down
DROP TABLE pairing_requests;
DROP TABLE pairing_codes;
DROP TABLE partner_connections;
DROP TABLE partnership_members;
DROP TABLE partnerships;
