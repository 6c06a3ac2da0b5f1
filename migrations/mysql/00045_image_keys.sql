-- +goose Up
-- Image addresses move with the deployment (issue 49): what the service
-- minted is stored as its key, and the address is rendered when read from
-- TANDEM_PUBLIC_URL, so a backup restored under another address serves
-- every image from there.
--
-- images.url was always TANDEM_PUBLIC_URL/files/<blob_key>: it goes, the
-- key stays.
ALTER TABLE images DROP COLUMN url;

-- memories.images (a JSON array of strings, as Go writes it): each address
-- of an uploaded file (http or https, any host and path, or none (the
-- path this Down writes), then /files/ and
-- a key of the form the upload mints: u/<owner>/<32 hex>.<jpg|png|webp>)
-- becomes that key; the migration does not know TANDEM_PUBLIC_URL, so it
-- goes by that shape, which no other address served a file under. Any
-- other address stays as it was. The pattern is case-sensitive whatever
-- the collation ((?-i)); it uses no backslash, so it reads the same under
-- any sql_mode, and no back reference (MySQL and MariaDB spell them
-- differently): the lookahead keeps the key and the closing quote.
UPDATE memories
SET images = REGEXP_REPLACE(images,
  '(?-i)"([Hh][Tt][Tt][Pp][Ss]?://[^"]*)?/files/(?=u/[A-Za-z0-9_-]{1,64}/[0-9a-f]{32}[.](jpg|png|webp)")', '"')
WHERE images LIKE '%/files/u/%';

-- +goose Down
-- Tandem never migrates down in production (docs/deploy.md); this Down
-- brings the column back for development. It cannot know the address the
-- images had: it writes the path, /files/<key>.
ALTER TABLE images ADD COLUMN url VARCHAR(1024) NOT NULL DEFAULT '' AFTER blob_key;
UPDATE images SET url = CONCAT('/files/', blob_key);
UPDATE memories
SET images = REGEXP_REPLACE(images, '(?-i)(?<=,|^.)"(?=[^":]*")', '"/files/')
WHERE images <> '[]';
