-- +goose Up
-- When the change feed is to record a subscription's lapse (issue 47):
-- its end_date while it grants premium, NULL once recorded or when it
-- grants none (premium.Subscription.LapseDue). The job that records them
-- reads idx_premium_lapse's range up to now. The subscriptions granting
-- at the upgrade are due at their end; those already past it were lapsed
-- before the feed could record them.
ALTER TABLE premium_subscriptions ADD COLUMN lapse_due BIGINT NULL, ADD INDEX idx_premium_lapse (lapse_due);
UPDATE premium_subscriptions SET lapse_due = end_date
 WHERE is_active AND NOT cancelled AND end_date > UNIX_TIMESTAMP(NOW(3)) * 1000;

-- +goose Down
ALTER TABLE premium_subscriptions DROP INDEX idx_premium_lapse, DROP COLUMN lapse_due;
