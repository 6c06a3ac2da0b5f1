-- +goose Up
-- remind_at is when the owner's reminder is due (UTC ms): notify minutes
-- before the start in the owner's timezone, computed when the event is
-- written. NULL once sent, or when there is no reminder to send. The
-- reminder job reads the due ones through idx_events_remind.
ALTER TABLE events ADD COLUMN remind_at BIGINT NULL, ADD KEY idx_events_remind (remind_at);

-- +goose Down
ALTER TABLE events DROP KEY idx_events_remind, DROP COLUMN remind_at;
