-- +goose Up
-- A subscription verified by a store carries the store's id of it
-- (store_ref: the originalTransactionId, or the SHA-256 of a Play purchase
-- token, never the token), NULL for a trusted one. One account may hold it:
-- uq_premium_store_ref refuses a second (purchase_in_use) and is the path of
-- every webhook lookup.
ALTER TABLE premium_subscriptions ADD COLUMN store TEXT NOT NULL DEFAULT '';
ALTER TABLE premium_subscriptions ADD COLUMN store_ref TEXT NULL;
ALTER TABLE premium_subscriptions ADD COLUMN product_id TEXT NOT NULL DEFAULT '';
ALTER TABLE premium_subscriptions ADD COLUMN state TEXT NOT NULL DEFAULT 'active';
ALTER TABLE premium_subscriptions ADD COLUMN store_signed_at INTEGER NOT NULL DEFAULT 0;
CREATE UNIQUE INDEX uq_premium_store_ref ON premium_subscriptions (store_ref, store);

-- Store notifications already applied, by store-prefixed id (App Store
-- notificationUUID, Pub/Sub message id): a redelivery changes nothing.
CREATE TABLE premium_store_events (
  id          TEXT    NOT NULL PRIMARY KEY,
  received_at INTEGER NOT NULL
);
CREATE INDEX idx_premium_store_events_received ON premium_store_events (received_at);

-- +goose Down
DROP TABLE premium_store_events;
DROP INDEX uq_premium_store_ref;
ALTER TABLE premium_subscriptions DROP COLUMN store_signed_at;
ALTER TABLE premium_subscriptions DROP COLUMN state;
ALTER TABLE premium_subscriptions DROP COLUMN product_id;
ALTER TABLE premium_subscriptions DROP COLUMN store_ref;
ALTER TABLE premium_subscriptions DROP COLUMN store;
