-- +goose Up
-- E-mails are stored trimmed and lower-cased by the service, so the unique
-- index needs no collation of its own: utf8mb4_general_ci held 'víctim@' equal
-- to 'victim@', another mailbox, and refused its sign-up (409).
ALTER TABLE accounts MODIFY email VARCHAR(254) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL;

-- +goose Down
ALTER TABLE accounts MODIFY email VARCHAR(254) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NOT NULL;
