-- +goose Up
-- Passkeys (WebAuthn credentials) and their ceremonies' challenges.
-- passkeys: one row per registered credential. credential_id is the
-- authenticator's raw credential id (at most 1023 bytes by the WebAuthn
-- specification; unique: a sign-in finds its passkey by it); public_key the
-- COSE key; sign_count the last signature counter seen; details the
-- library's record of transports, flags and attestation (JSON). created_at
-- and last_used_at are milliseconds (last_used_at 0: never).
-- Query paths: sign-in by credential_id (uq_passkeys_credential), a user's
-- list, registration's exclude list and the purge by user_id
-- (ix_passkeys_user), delete by (user_id, id) through the primary key.
CREATE TABLE passkeys (
  id            VARCHAR(36)     NOT NULL PRIMARY KEY,
  user_id       VARCHAR(36)     NOT NULL,
  credential_id VARBINARY(1023) NOT NULL,
  public_key    BLOB            NOT NULL,
  sign_count    BIGINT          NOT NULL,
  details       TEXT            NOT NULL,
  created_at    BIGINT          NOT NULL,
  last_used_at  BIGINT          NOT NULL,
  UNIQUE KEY uq_passkeys_credential (credential_id),
  KEY ix_passkeys_user (user_id, created_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- passkey_challenges: one row per ceremony begun and not yet finished. id
-- is the SHA-256 (hex) of the challenge sent to the client, which the
-- client's answer carries back; user_id the registering user (NULL for a
-- discoverable sign-in); purpose register|signin; session the library's
-- session data (JSON); expires_at milliseconds. A verify takes the row
-- (primary key, locked) and deletes it: a challenge serves once. Expired
-- rows are purged by ix_passkey_challenges_expiry.
CREATE TABLE passkey_challenges (
  id         CHAR(64)    NOT NULL PRIMARY KEY,
  user_id    VARCHAR(36) NULL,
  purpose    VARCHAR(8)  NOT NULL,
  session    TEXT        NOT NULL,
  expires_at BIGINT      NOT NULL,
  KEY ix_passkey_challenges_expiry (expires_at),
  KEY ix_passkey_challenges_user (user_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- +goose Down
DROP TABLE passkey_challenges;
DROP TABLE passkeys;
