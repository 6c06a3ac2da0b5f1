-- +goose Up
-- Every text a person reads, in their language. accounts.locale is the
-- profile's BCP 47 tag ('' for accounts made before it: read as English).
-- notifications.text_key and text_args name a stored notification's text in
-- the catalogs (adapters/i18n) with its arguments (a JSON array), so that it
-- is written in the reader's locale of the moment it is read; '' keeps the
-- title and message as written (a notification an administrator sent).
ALTER TABLE accounts ADD COLUMN locale TEXT NOT NULL DEFAULT '';
ALTER TABLE notifications ADD COLUMN text_key TEXT NOT NULL DEFAULT '';
ALTER TABLE notifications ADD COLUMN text_args TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE notifications DROP COLUMN text_args;
ALTER TABLE notifications DROP COLUMN text_key;
ALTER TABLE accounts DROP COLUMN locale;
