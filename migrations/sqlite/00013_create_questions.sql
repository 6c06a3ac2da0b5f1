-- +goose Up
-- The daily question of each couple (partnership) and date, picked from the
-- bank by the first partner to open that date: the unique index makes the
-- pick atomic. question_id is the bank's stable id (the 30-day repeat rule
-- compares it); body and category are copied from the bank, so history shows
-- what was asked. day is TEXT YYYY-MM-DD. Query paths: one date, the nearby
-- dates of a pick (a bounded range) and the history (dates up to today,
-- newest first), all through uq_question_dailies_day.
CREATE TABLE question_dailies (
  id             TEXT    NOT NULL PRIMARY KEY,
  partnership_id TEXT    NOT NULL,
  day            TEXT    NOT NULL,
  question_id    TEXT    NOT NULL,
  body           TEXT    NOT NULL,
  category       TEXT    NOT NULL,
  created_at     INTEGER NOT NULL
);
CREATE UNIQUE INDEX uq_question_dailies_day ON question_dailies (partnership_id, day);

-- The conversation under a daily question: answers and replies (body), and
-- reactions (reaction, to the item message_id). answer_user is the author of
-- an answer and NULL otherwise: its unique index allows one answer per user
-- per question. reaction_user does the same for one reaction per user per
-- item, and serves the lookup of a reaction to replace. Query paths: a
-- question's conversation in time order; a user's items for export and
-- purge; the reactions to a purged user's items.
CREATE TABLE question_messages (
  id            TEXT    NOT NULL PRIMARY KEY,
  daily_id      TEXT    NOT NULL,
  user_id       TEXT    NOT NULL,
  kind          TEXT    NOT NULL,
  body          TEXT    NOT NULL DEFAULT '',
  reaction      TEXT    NOT NULL DEFAULT '',
  reply_to      TEXT    NOT NULL DEFAULT '',
  message_id    TEXT    NOT NULL DEFAULT '',
  answer_user   TEXT    GENERATED ALWAYS AS (CASE WHEN kind = 'answer' THEN user_id END) STORED,
  reaction_user TEXT    GENERATED ALWAYS AS (CASE WHEN kind = 'reaction' THEN user_id END) STORED,
  created_at    INTEGER NOT NULL
);
CREATE UNIQUE INDEX uq_question_messages_answer ON question_messages (daily_id, answer_user);
CREATE UNIQUE INDEX uq_question_messages_reaction ON question_messages (message_id, reaction_user);
CREATE INDEX idx_question_messages_daily ON question_messages (daily_id, created_at, id);
CREATE INDEX idx_question_messages_user ON question_messages (user_id, created_at, id);

-- +goose Down
DROP TABLE question_messages;
DROP TABLE question_dailies;
