-- +goose Up
-- An administrator's block (the console): a blocked account gets no
-- session by any way in until it is unblocked. The index serves the
-- console's user list, newest first.
ALTER TABLE accounts ADD COLUMN blocked INTEGER NOT NULL DEFAULT 0;
CREATE INDEX idx_accounts_created ON accounts (created_at, id);

-- +goose Down
DROP INDEX idx_accounts_created;
ALTER TABLE accounts DROP COLUMN blocked;
