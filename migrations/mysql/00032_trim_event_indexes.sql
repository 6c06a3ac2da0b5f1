-- +goose Up
-- Every event write paid for idx_events_user_end, which no query needs: the
-- date-range query reads a bounded range of idx_events_user_start.
-- (idx_events_remind stays whole: MySQL has no partial indexes.)
ALTER TABLE events DROP INDEX idx_events_user_end;

-- +goose Down
ALTER TABLE events ADD INDEX idx_events_user_end (user_id, end_date);
