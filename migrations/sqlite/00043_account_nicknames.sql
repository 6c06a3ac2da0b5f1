-- +goose Up
-- The profile's nickname ('' for none; at most accounts.MaxNickname
-- characters, checked by the module).
ALTER TABLE accounts ADD COLUMN nickname TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE accounts DROP COLUMN nickname;
