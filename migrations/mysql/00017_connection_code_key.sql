-- +goose Up
-- Connection codes are unique ignoring case: code_key is the code in lower
-- case (partners.ConnectionKey), compared in binary so the rule does not hang
-- on a collation, under a unique index; links find a code by it. Codes stored
-- before may share a key: the oldest keeps it, the others keep a NULL key (a
-- unique index admits many) and are found by their exact spelling through
-- uq_partner_connections_code.
ALTER TABLE partner_connections ADD COLUMN code_key VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NULL;
UPDATE partner_connections c
LEFT JOIN partner_connections o
  ON LOWER(o.code) = LOWER(c.code)
 AND (o.created_at < c.created_at OR (o.created_at = c.created_at AND o.user_id < c.user_id))
SET c.code_key = LOWER(c.code)
WHERE o.user_id IS NULL;
ALTER TABLE partner_connections ADD UNIQUE KEY uq_partner_connections_code_key (code_key);

-- +goose Down
ALTER TABLE partner_connections DROP KEY uq_partner_connections_code_key, DROP COLUMN code_key;
