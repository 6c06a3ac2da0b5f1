-- +goose Up
-- The daily question of each couple (partnership) and date, picked from the
-- bank by the first partner to open that date: the unique key makes the pick
-- atomic. question_id is the bank's stable id (the 30-day repeat rule
-- compares it); body and category are copied from the bank, so history shows
-- what was asked. Query paths: one date, the nearby dates of a pick (a
-- bounded range) and the history (dates up to today, newest first), all
-- through uq_question_dailies_day.
CREATE TABLE question_dailies (
  id             VARCHAR(36)  NOT NULL PRIMARY KEY,
  partnership_id VARCHAR(36)  NOT NULL,
  day            DATE         NOT NULL,
  question_id    VARCHAR(32)  NOT NULL,
  body           VARCHAR(500) NOT NULL,
  category       VARCHAR(32)  NOT NULL,
  created_at     BIGINT       NOT NULL,
  UNIQUE KEY uq_question_dailies_day (partnership_id, day)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- The conversation under a daily question: answers and replies (body), and
-- reactions (reaction, to the item message_id). answer_user is the author of
-- an answer and NULL otherwise: its unique key allows one answer per user per
-- question. reaction_user does the same for one reaction per user per item,
-- and serves the lookup of a reaction to replace. Query paths: a question's
-- conversation in time order (idx_question_messages_daily); a user's items
-- for export and purge (idx_question_messages_user); the reactions to a
-- purged user's items (the message_id prefix of uq_question_messages_reaction).
CREATE TABLE question_messages (
  id            VARCHAR(36)   NOT NULL PRIMARY KEY,
  daily_id      VARCHAR(36)   NOT NULL,
  user_id       VARCHAR(36)   NOT NULL,
  kind          VARCHAR(16)   NOT NULL,
  body          VARCHAR(2000) NOT NULL DEFAULT '',
  reaction      VARCHAR(16)   NOT NULL DEFAULT '',
  reply_to      VARCHAR(36)   NOT NULL DEFAULT '',
  message_id    VARCHAR(36)   NOT NULL DEFAULT '',
  answer_user   VARCHAR(36)   AS (CASE WHEN kind = 'answer' THEN user_id END) STORED,
  reaction_user VARCHAR(36)   AS (CASE WHEN kind = 'reaction' THEN user_id END) STORED,
  created_at    BIGINT        NOT NULL,
  UNIQUE KEY uq_question_messages_answer (daily_id, answer_user),
  UNIQUE KEY uq_question_messages_reaction (message_id, reaction_user),
  KEY idx_question_messages_daily (daily_id, created_at, id),
  KEY idx_question_messages_user (user_id, created_at, id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- +goose Down
DROP TABLE question_messages;
DROP TABLE question_dailies;
