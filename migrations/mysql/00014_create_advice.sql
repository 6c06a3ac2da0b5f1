-- +goose Up
-- The advice each user got for each date (the date in the user's timezone),
-- produced by the first request of that date and the same all day: the
-- unique key makes the pick atomic. advice_id is the bank's stable id (the
-- 30-day repeat rule compares it); body and theme are copied from the bank.
-- Query paths: one date, the nearby dates of a pick (a bounded range), and a
-- user's whole history for export and purge, all through uq_advice_dailies_day.
CREATE TABLE advice_dailies (
  id         VARCHAR(36)  NOT NULL PRIMARY KEY,
  user_id    VARCHAR(36)  NOT NULL,
  day        DATE         NOT NULL,
  advice_id  VARCHAR(32)  NOT NULL,
  body       VARCHAR(500) NOT NULL,
  theme      VARCHAR(32)  NOT NULL,
  created_at BIGINT       NOT NULL,
  UNIQUE KEY uq_advice_dailies_day (user_id, day)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- +goose Down
DROP TABLE advice_dailies;
