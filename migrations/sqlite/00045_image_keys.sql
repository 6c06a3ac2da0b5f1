-- +goose Up
-- Image addresses move with the deployment (issue 49): what the service
-- minted is stored as its key, and the address is rendered when read from
-- TANDEM_PUBLIC_URL, so a backup restored under another address serves
-- every image from there.
--
-- images.url was always TANDEM_PUBLIC_URL/files/<blob_key>: it goes, the
-- key stays.
ALTER TABLE images DROP COLUMN url;

-- memories.images: each address of an uploaded file (http or https, any
-- host and path, or none (the path this Down writes), then /files/ and a key of the form the upload mints:
-- u/<owner>/<32 hex>.<jpg|png|webp>) becomes that key; the migration does
-- not know TANDEM_PUBLIC_URL, so it goes by that shape, which no other
-- address served a file under. Any other address stays as it was (a
-- client's address that never named an uploaded file; it is served as
-- stored). The order of the list is kept.
UPDATE memories SET images = (
  WITH e AS (
    SELECT j.key AS pos, j.value AS v, j.type AS t,
           substr(j.value, instr(j.value, '/files/u/') + 7) AS k
    FROM json_each(memories.images) AS j
  ), o AS (
    SELECT pos, v, t, k, substr(k, 3, instr(substr(k, 3), '/') - 1) AS owner FROM e
  )
  SELECT json_group_array(CASE
    WHEN t = 'text'
     AND (lower(substr(v, 1, 7)) = 'http://' OR lower(substr(v, 1, 8)) = 'https://' OR substr(v, 1, 9) = '/files/u/')
     AND instr(v, '/files/u/') > 0
     AND length(owner) BETWEEN 1 AND 64
     AND owner NOT GLOB '*[^A-Za-z0-9_-]*'
     AND (substr(k, length(owner) + 4) GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f].jpg'
       OR substr(k, length(owner) + 4) GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f].png'
       OR substr(k, length(owner) + 4) GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f].webp')
    THEN k ELSE v END ORDER BY pos)
  FROM o
)
WHERE images LIKE '%/files/u/%';

-- +goose Down
-- Tandem never migrates down in production (docs/deploy.md); this Down
-- brings the columns back for development. It cannot know the address the
-- images had: it writes the path, /files/<key>.
ALTER TABLE images ADD COLUMN url TEXT NOT NULL DEFAULT '';
UPDATE images SET url = '/files/' || blob_key;
UPDATE memories SET images = (
  SELECT json_group_array(CASE WHEN j.type = 'text' AND instr(j.value, '://') = 0 THEN '/files/' || j.value
    ELSE j.value END ORDER BY j.key)
  FROM json_each(memories.images) AS j
)
WHERE images <> '[]';
