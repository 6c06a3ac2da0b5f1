-- +goose Up
-- A subscription verified by a store carries the store's id of it
-- (store_ref: the originalTransactionId, or the SHA-256 of a Play purchase
-- token, never the token), NULL for a trusted one. One account may hold it:
-- uq_premium_store_ref refuses a second (purchase_in_use) and is the path of
-- every webhook lookup.
ALTER TABLE premium_subscriptions
  ADD COLUMN store           VARCHAR(16)  NOT NULL DEFAULT '',
  ADD COLUMN store_ref       VARCHAR(128) NULL,
  ADD COLUMN product_id      VARCHAR(255) NOT NULL DEFAULT '',
  ADD COLUMN state           VARCHAR(16)  NOT NULL DEFAULT 'active',
  ADD COLUMN store_signed_at BIGINT       NOT NULL DEFAULT 0,
  ADD UNIQUE INDEX uq_premium_store_ref (store_ref, store);

-- Store notifications already applied, by store-prefixed id (App Store
-- notificationUUID, Pub/Sub message id): a redelivery changes nothing.
-- idx_premium_store_events_received is the path of the pruning of old ids.
CREATE TABLE premium_store_events (
  id          VARCHAR(200) NOT NULL PRIMARY KEY,
  received_at BIGINT       NOT NULL,
  INDEX idx_premium_store_events_received (received_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- +goose Down
DROP TABLE premium_store_events;
ALTER TABLE premium_subscriptions
  DROP INDEX uq_premium_store_ref,
  DROP COLUMN store, DROP COLUMN store_ref, DROP COLUMN product_id, DROP COLUMN state, DROP COLUMN store_signed_at;
