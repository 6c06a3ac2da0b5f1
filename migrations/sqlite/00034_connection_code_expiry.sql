-- +goose Up
-- Connection codes link until expires_at (milliseconds; partners.Connection
-- LinkableAt). Codes stored before get their creation time plus the default
-- 7 days (partners.DefaultConnectionCodeTTL): older ones, the weak codes the
-- earlier rule let in among them, stop linking at once. The purge job deletes
-- expired codes of unpaired owners through idx_partner_connections_expires.
-- The default 0 is never written by the service; a row without an expiry
-- would be expired, which fails closed.
ALTER TABLE partner_connections ADD COLUMN expires_at INTEGER NOT NULL DEFAULT 0;
UPDATE partner_connections SET expires_at = created_at + 604800000;
CREATE INDEX idx_partner_connections_expires ON partner_connections (expires_at);

-- +goose Down
DROP INDEX idx_partner_connections_expires;
ALTER TABLE partner_connections DROP COLUMN expires_at;
