-- +goose Up
-- Every event write paid for two indexes no query needs as they were:
-- idx_events_user_end (the date-range query reads a bounded range of
-- idx_events_user_start, and SQLite's planner could pick the unbounded
-- end-date one instead), and the whole of idx_events_remind, when only the
-- events with a reminder due are ever read from it.
DROP INDEX idx_events_user_end;
DROP INDEX idx_events_remind;
CREATE INDEX idx_events_remind ON events (remind_at) WHERE remind_at IS NOT NULL;

-- +goose Down
DROP INDEX idx_events_remind;
CREATE INDEX idx_events_remind ON events (remind_at);
CREATE INDEX idx_events_user_end ON events (user_id, end_date);
