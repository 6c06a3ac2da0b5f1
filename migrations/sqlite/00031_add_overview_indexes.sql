-- +goose Up
-- The console's overview counts: subscriptions granting premium now
-- (is_active, not cancelled, end_date ahead) and images stored since
-- midnight, each a range of one index instead of a table scan.
CREATE INDEX idx_premium_active ON premium_subscriptions (is_active, cancelled, end_date);
CREATE INDEX idx_images_created ON images (created_at);

-- +goose Down
DROP INDEX idx_images_created;
DROP INDEX idx_premium_active;
