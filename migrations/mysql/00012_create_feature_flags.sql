-- +goose Up
-- Feature flags by key (a-z, 0-9, _ . -, compared and ordered bytewise:
-- ascii_bin, so the admin list pages by key like Go's string order).
-- platforms is a comma list of ios/android/web, '' for every platform.
-- Query paths: a flag by key (the key); all flags in key order (the key);
-- id is unique for the flagId handed out at create.
CREATE TABLE feature_flags (
  flag_key            VARCHAR(64)   CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY,
  id                  VARCHAR(36)   NOT NULL,
  name                VARCHAR(100)  NOT NULL,
  description         VARCHAR(1000) NOT NULL DEFAULT '',
  is_enabled          BOOLEAN       NOT NULL,
  enabled_for_premium BOOLEAN       NOT NULL,
  rollout_percentage  SMALLINT      NOT NULL,
  platforms           VARCHAR(32)   NOT NULL DEFAULT '',
  created_by          VARCHAR(255)  NOT NULL DEFAULT '',
  created_at          BIGINT        NOT NULL,
  updated_at          BIGINT        NOT NULL,
  UNIQUE KEY uq_feature_flags_id (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- The users a flag lists: listed is 'enabled' (enabledForUserIds) or
-- 'disabled' (disabledForUserIds); the key makes a user listed once per flag.
-- User ids are compared exactly (utf8mb4_bin). Query paths: a flag's lists
-- and one user's place in one flag through the key; one user's places in
-- every flag (evaluating them all, export, purge) through idx_..._user.
CREATE TABLE feature_flag_users (
  flag_key VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  user_id  VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  listed   VARCHAR(8)  NOT NULL,
  PRIMARY KEY (flag_key, user_id),
  KEY idx_feature_flag_users_user (user_id, flag_key),
  CONSTRAINT fk_feature_flag_users_flag FOREIGN KEY (flag_key) REFERENCES feature_flags (flag_key) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- +goose Down
DROP TABLE feature_flag_users;
DROP TABLE feature_flags;
