-- +goose Up
-- The profile's nickname ('' for none; at most accounts.MaxNickname
-- characters, checked by the module).
ALTER TABLE accounts ADD COLUMN nickname VARCHAR(40) NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE accounts DROP COLUMN nickname;
