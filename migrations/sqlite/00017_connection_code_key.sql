-- +goose Up
-- Connection codes are unique ignoring case: code_key is the code in lower
-- case (partners.ConnectionKey) under a unique index, and links find a code
-- by it. Codes stored before may share a key: the oldest keeps it, the others
-- keep a NULL key (a unique index admits many) and are found by their exact
-- spelling through uq_partner_connections_code.
ALTER TABLE partner_connections ADD COLUMN code_key TEXT NULL;
UPDATE partner_connections SET code_key = lower(code)
WHERE NOT EXISTS (
  SELECT 1 FROM partner_connections o
  WHERE lower(o.code) = lower(partner_connections.code)
    AND (o.created_at < partner_connections.created_at
      OR (o.created_at = partner_connections.created_at AND o.user_id < partner_connections.user_id))
);
CREATE UNIQUE INDEX uq_partner_connections_code_key ON partner_connections (code_key);

-- +goose Down
DROP INDEX uq_partner_connections_code_key;
ALTER TABLE partner_connections DROP COLUMN code_key;
