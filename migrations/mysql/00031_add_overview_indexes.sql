-- +goose Up
-- The console's overview counts: subscriptions granting premium now
-- (is_active, not cancelled, end_date ahead) and images stored since
-- midnight, each a range of one index instead of a table scan.
ALTER TABLE premium_subscriptions ADD INDEX idx_premium_active (is_active, cancelled, end_date);
ALTER TABLE images ADD INDEX idx_images_created (created_at);

-- +goose Down
ALTER TABLE images DROP INDEX idx_images_created;
ALTER TABLE premium_subscriptions DROP INDEX idx_premium_active;
