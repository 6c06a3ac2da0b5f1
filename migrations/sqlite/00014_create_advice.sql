-- +goose Up
-- The advice each user got for each date (the date in the user's timezone),
-- produced by the first request of that date and the same all day: the
-- unique index makes the pick atomic. advice_id is the bank's stable id (the
-- 30-day repeat rule compares it); body and theme are copied from the bank.
-- day is TEXT YYYY-MM-DD. Query paths: one date, the nearby dates of a pick
-- (a bounded range), and a user's whole history for export and purge, all
-- through uq_advice_dailies_day.
CREATE TABLE advice_dailies (
  id         TEXT    NOT NULL PRIMARY KEY,
  user_id    TEXT    NOT NULL,
  day        TEXT    NOT NULL,
  advice_id  TEXT    NOT NULL,
  body       TEXT    NOT NULL,
  theme      TEXT    NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX uq_advice_dailies_day ON advice_dailies (user_id, day);

-- +goose Down
DROP TABLE advice_dailies;
