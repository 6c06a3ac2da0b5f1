-- +goose Up
ALTER TABLE events ADD COLUMN remind_at INTEGER NULL;
CREATE INDEX idx_events_remind ON events (remind_at);

-- +goose Down
DROP INDEX idx_events_remind;
ALTER TABLE events DROP COLUMN remind_at;
