-- +goose Up
-- Feature flags by key (a-z, 0-9, _ . -, compared and ordered bytewise, as
-- SQLite's BINARY collation does, so the admin list pages by key).
-- platforms is a comma list of ios/android/web, '' for every platform.
-- Query paths: a flag by key (the key); all flags in key order (the key);
-- id is unique for the flagId handed out at create.
CREATE TABLE feature_flags (
  flag_key            TEXT    NOT NULL PRIMARY KEY,
  id                  TEXT    NOT NULL,
  name                TEXT    NOT NULL,
  description         TEXT    NOT NULL DEFAULT '',
  is_enabled          INTEGER NOT NULL,
  enabled_for_premium INTEGER NOT NULL,
  rollout_percentage  INTEGER NOT NULL,
  platforms           TEXT    NOT NULL DEFAULT '',
  created_by          TEXT    NOT NULL DEFAULT '',
  created_at          INTEGER NOT NULL,
  updated_at          INTEGER NOT NULL
);
CREATE UNIQUE INDEX uq_feature_flags_id ON feature_flags (id);

-- The users a flag lists: listed is 'enabled' (enabledForUserIds) or
-- 'disabled' (disabledForUserIds); the key makes a user listed once per flag.
-- Query paths: a flag's lists and one user's place in one flag through the
-- key; one user's places in every flag (evaluating them all, export, purge)
-- through idx_feature_flag_users_user.
CREATE TABLE feature_flag_users (
  flag_key TEXT NOT NULL REFERENCES feature_flags (flag_key) ON DELETE CASCADE,
  user_id  TEXT NOT NULL,
  listed   TEXT NOT NULL,
  PRIMARY KEY (flag_key, user_id)
);
CREATE INDEX idx_feature_flag_users_user ON feature_flag_users (user_id, flag_key);

-- +goose Down
DROP TABLE feature_flag_users;
DROP TABLE feature_flags;
