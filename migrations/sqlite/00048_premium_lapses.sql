-- +goose Up
-- When the change feed is to record a subscription's lapse (issue 47):
-- see the MySQL migration.
ALTER TABLE premium_subscriptions ADD COLUMN lapse_due INTEGER;
CREATE INDEX idx_premium_lapse ON premium_subscriptions (lapse_due);
UPDATE premium_subscriptions SET lapse_due = end_date
 WHERE is_active AND NOT cancelled AND end_date > CAST(strftime('%s', 'now') AS INTEGER) * 1000;

-- +goose Down
DROP INDEX idx_premium_lapse;
ALTER TABLE premium_subscriptions DROP COLUMN lapse_due;
