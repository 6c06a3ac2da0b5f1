package sqlstore

import (
	"context"

	sq "github.com/Masterminds/squirrel"
	"github.com/jmoiron/sqlx"

	"tandem/core"
	"tandem/modules/questions"
)

var _ questions.Repository = (*QuestionRepo)(nil)

// QuestionRepo stores question_dailies and question_messages. The unique
// keys (partnership, day), (question, answer author) and (item, reaction
// author) keep one question per couple and date, one answer per user and one
// reaction per user and item, even under races.
type QuestionRepo struct{ db *DB }

func NewQuestionRepo(db *DB) *QuestionRepo { return &QuestionRepo{db: db} }

var (
	questionDailyColumns   = []string{"id", "partnership_id", "day", "question_id", "body", "category", "created_at"}
	questionMessageColumns = []string{"id", "daily_id", "user_id", "kind", "body", "reaction", "reply_to", "message_id",
		"created_at"}
)

type questionDailyRow struct {
	ID            string `db:"id"`
	PartnershipID string `db:"partnership_id"`
	Day           dbDate `db:"day"`
	QuestionID    string `db:"question_id"`
	Body          string `db:"body"`
	Category      string `db:"category"`
	CreatedAt     int64  `db:"created_at"`
}

func (r questionDailyRow) daily() questions.Daily {
	return questions.Daily{ID: r.ID, PartnershipID: r.PartnershipID, Date: r.Day.Date, QuestionID: r.QuestionID,
		Text: r.Body, Category: questions.Category(r.Category), CreatedAt: core.FromMillis(r.CreatedAt)}
}

type questionMessageRow struct {
	ID        string `db:"id"`
	DailyID   string `db:"daily_id"`
	UserID    string `db:"user_id"`
	Kind      string `db:"kind"`
	Body      string `db:"body"`
	Reaction  string `db:"reaction"`
	ReplyTo   string `db:"reply_to"`
	MessageID string `db:"message_id"`
	CreatedAt int64  `db:"created_at"`
}

func (r questionMessageRow) message() questions.Message {
	return questions.Message{ID: r.ID, DailyID: r.DailyID, UserID: r.UserID, Kind: questions.Kind(r.Kind), Text: r.Body,
		Reaction: r.Reaction, ReplyTo: r.ReplyTo, MessageID: r.MessageID, CreatedAt: core.FromMillis(r.CreatedAt)}
}

func questionMessageValues(m questions.Message) []any {
	return []any{m.ID, m.DailyID, m.UserID, string(m.Kind), m.Text, m.Reaction, m.ReplyTo, m.MessageID,
		m.CreatedAt.UnixMilli()}
}

// Open locks the date (MySQL: the row, or the gap where it would go; SQLite
// transactions hold the write lock) and the nearby dates, then picks and
// inserts. Of two concurrent first opens on MySQL one is a deadlock victim
// and re-runs (inTx), finding the other's row; a duplicate key that still
// slips through is answered by reading the winner's row.
func (r *QuestionRepo) Open(ctx context.Context, partnershipID string, day core.Date, pick func(nearby []questions.Daily) (questions.Daily, error), opened func(d questions.Daily, picked bool)) (questions.Daily, error) {
	if opened == nil {
		opened = func(questions.Daily, bool) {}
	}
	var out questions.Daily
	err := r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		d, err := r.dailyOn(ctx, tx, partnershipID, day, r.db.forUpdate())
		if err == nil {
			out = d
			opened(d, false)
			return nil
		}
		if !isNotFound(err) {
			return err
		}
		var rows []questionDailyRow
		b := r.db.sb.Select(questionDailyColumns...).From("question_dailies").
			Where(sq.Eq{"partnership_id": partnershipID}).
			Where(sq.GtOrEq{"day": dateArg(questions.NearbyFrom(day))}).
			Where(sq.LtOrEq{"day": dateArg(questions.NearbyTo(day))}).
			OrderBy("day")
		if s := r.db.forUpdate(); s != "" {
			b = b.Suffix(s)
		}
		if err := r.db.selectInto(ctx, tx, &rows, b); err != nil {
			return err
		}
		nearby := make([]questions.Daily, len(rows))
		for i, row := range rows {
			nearby[i] = row.daily()
		}
		d, err = pick(nearby)
		if err != nil {
			return err
		}
		d.PartnershipID, d.Date = partnershipID, day
		out = d
		err = r.db.exec(ctx, tx, r.db.sb.Insert("question_dailies").Columns(questionDailyColumns...).
			Values(d.ID, d.PartnershipID, dateArg(d.Date), d.QuestionID, d.Text, string(d.Category), d.CreatedAt.UnixMilli()))
		if err == nil {
			opened(d, true)
		}
		return err
	})
	if core.IsKind(err, core.KindConflict) {
		return r.dailyOn(ctx, r.db, partnershipID, day, "")
	}
	return out, err
}

func (r *QuestionRepo) Find(ctx context.Context, partnershipID string, day core.Date) (questions.Daily, error) {
	return r.dailyOn(ctx, r.db, partnershipID, day, "")
}

// dailyOn reads one date through uq_question_dailies_day.
func (r *QuestionRepo) dailyOn(ctx context.Context, q sqlx.QueryerContext, partnershipID string, day core.Date, suffix string) (questions.Daily, error) {
	var row questionDailyRow
	b := r.db.sb.Select(questionDailyColumns...).From("question_dailies").
		Where(sq.Eq{"partnership_id": partnershipID, "day": dateArg(day)})
	if suffix != "" {
		b = b.Suffix(suffix)
	}
	err := r.db.get(ctx, q, &row, b)
	return row.daily(), err
}

// conversationRow is a question with one message of its conversation, or
// none (a question nobody answered yet): a LEFT JOIN, read as "" and 0.
type conversationRow struct {
	questionDailyRow
	MID        string `db:"m_id"`
	MUserID    string `db:"m_user_id"`
	MKind      string `db:"m_kind"`
	MBody      string `db:"m_body"`
	MReaction  string `db:"m_reaction"`
	MReplyTo   string `db:"m_reply_to"`
	MMessageID string `db:"m_message_id"`
	MCreatedAt int64  `db:"m_created_at"`
}

// conversationColumns are the question's columns, then its messages',
// prefixed m_ (daily_id is the question's id).
var conversationColumns = func() []string {
	cols := make([]string, 0, len(questionDailyColumns)+len(questionMessageColumns))
	for _, c := range questionDailyColumns {
		cols = append(cols, "d."+c)
	}
	for _, c := range questionMessageColumns {
		if c == "daily_id" {
			continue
		}
		def := "''"
		if c == "created_at" {
			def = "0"
		}
		cols = append(cols, "COALESCE(m."+c+", "+def+") AS m_"+c)
	}
	return cols
}()

// Conversation reads the question by uq_question_dailies_day and its
// messages by their daily_id index, in one statement.
func (r *QuestionRepo) Conversation(ctx context.Context, partnershipID string, day core.Date) (questions.Daily, []questions.Message, error) {
	var rows []conversationRow
	if err := r.db.selectInto(ctx, r.db, &rows, r.db.sb.Select(conversationColumns...).From("question_dailies d").
		LeftJoin("question_messages m ON m.daily_id = d.id").
		Where(sq.Eq{"d.partnership_id": partnershipID, "d.day": dateArg(day)}).
		OrderBy("m.created_at", "m.id")); err != nil {
		return questions.Daily{}, nil, err
	}
	if len(rows) == 0 {
		return questions.Daily{}, nil, core.NotFound("not_found", "memory.noQuestionThatDate", "no question for that date")
	}
	d, out := rows[0].daily(), []questions.Message{}
	for _, row := range rows {
		if row.MID != "" {
			out = append(out, questionMessageRow{ID: row.MID, DailyID: d.ID, UserID: row.MUserID, Kind: row.MKind,
				Body: row.MBody, Reaction: row.MReaction, ReplyTo: row.MReplyTo, MessageID: row.MMessageID,
				CreatedAt: row.MCreatedAt}.message())
		}
	}
	return d, out, nil
}

// History reads one range of uq_question_dailies_day, from the cursor's date
// (or until) down.
func (r *QuestionRepo) History(ctx context.Context, partnershipID string, until core.Date, page core.Page) ([]questions.Daily, string, error) {
	if page.Cursor != "" {
		before, err := questions.ParseHistoryCursor(page.Cursor)
		if err != nil {
			return nil, "", err
		}
		if !before.After(until) {
			until = before.AddDays(-1)
		}
	}
	size := page.Size()
	var rows []questionDailyRow
	if err := r.db.selectInto(ctx, r.db, &rows, r.db.sb.Select(questionDailyColumns...).From("question_dailies").
		Where(sq.Eq{"partnership_id": partnershipID}).Where(sq.LtOrEq{"day": dateArg(until)}).
		OrderBy("day DESC").Limit(uint64(size)+1)); err != nil {
		return nil, "", err
	}
	rows, next := core.CutPage(rows, page, func(row questionDailyRow) string { return questions.HistoryCursor(row.Day.Date) })
	out := make([]questions.Daily, len(rows))
	for i, row := range rows {
		out[i] = row.daily()
	}
	return out, next, nil
}

// Messages reads idx_question_messages_daily.
func (r *QuestionRepo) Messages(ctx context.Context, dailyIDs []string) ([]questions.Message, error) {
	out := []questions.Message{}
	if len(dailyIDs) == 0 {
		return out, nil
	}
	var rows []questionMessageRow
	if err := r.db.selectInto(ctx, r.db, &rows, r.db.sb.Select(questionMessageColumns...).From("question_messages").
		Where(sq.Eq{"daily_id": dailyIDs}).OrderBy("created_at", "id")); err != nil {
		return nil, err
	}
	for _, row := range rows {
		out = append(out, row.message())
	}
	return out, nil
}

// AddMessage inserts; uq_question_messages_answer turns a second answer into
// a duplicate key (core.KindConflict).
func (r *QuestionRepo) AddMessage(ctx context.Context, m questions.Message) error {
	return r.db.exec(ctx, r.db, r.db.sb.Insert("question_messages").Columns(questionMessageColumns...).
		Values(questionMessageValues(m)...))
}

// React updates the user's reaction to the item or inserts it, in one
// transaction; a concurrent first reaction that wins the insert makes this
// one run again and update it.
func (r *QuestionRepo) React(ctx context.Context, m questions.Message) (questions.Message, error) {
	out, err := r.react(ctx, m)
	if core.IsKind(err, core.KindConflict) {
		out, err = r.react(ctx, m)
	}
	return out, err
}

func (r *QuestionRepo) react(ctx context.Context, m questions.Message) (questions.Message, error) {
	var out questions.Message
	err := r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		var row questionMessageRow
		b := r.db.sb.Select(questionMessageColumns...).From("question_messages").
			Where(sq.Eq{"message_id": m.MessageID, "reaction_user": m.UserID})
		if s := r.db.forUpdate(); s != "" {
			b = b.Suffix(s)
		}
		err := r.db.get(ctx, tx, &row, b)
		switch {
		case err == nil:
			out = row.message()
			out.Reaction, out.CreatedAt = m.Reaction, m.CreatedAt
			return r.db.execOne(ctx, tx, r.db.sb.Update("question_messages").
				Set("reaction", m.Reaction).Set("created_at", m.CreatedAt.UnixMilli()).Where(sq.Eq{"id": row.ID}))
		case isNotFound(err):
			out = m
			return r.db.exec(ctx, tx, r.db.sb.Insert("question_messages").Columns(questionMessageColumns...).
				Values(questionMessageValues(m)...))
		}
		return err
	})
	return out, err
}

// AnsweredByBoth reads the partnership's range of uq_question_dailies_day
// and, for each question, its answers through uq_question_messages_answer
// (answer_user is set on answers only, one per user): one indexed query,
// grouped in index order.
func (r *QuestionRepo) AnsweredByBoth(ctx context.Context, partnershipID string) ([]core.Date, error) {
	var rows []dbDate
	if err := r.db.selectInto(ctx, r.db, &rows, r.db.sb.Select("d.day").From("question_dailies d").
		Join("question_messages m ON m.daily_id = d.id").
		Where(sq.Eq{"d.partnership_id": partnershipID}).Where(sq.NotEq{"m.answer_user": nil}).
		GroupBy("d.day").Having("COUNT(*) >= 2").OrderBy("d.day")); err != nil {
		return nil, err
	}
	out := make([]core.Date, len(rows))
	for i, row := range rows {
		out[i] = row.Date
	}
	return out, nil
}

// MessagesByUser reads idx_question_messages_user, joining each item's
// question by its key.
func (r *QuestionRepo) MessagesByUser(ctx context.Context, userID string) ([]questions.Entry, error) {
	cols := make([]string, 0, len(questionMessageColumns)+6)
	for _, c := range questionMessageColumns {
		cols = append(cols, "m."+c)
	}
	cols = append(cols, "d.partnership_id", "d.day", "d.question_id", "d.body AS question_body", "d.category",
		"d.created_at AS daily_created_at")
	var rows []struct {
		questionMessageRow
		PartnershipID  string `db:"partnership_id"`
		Day            dbDate `db:"day"`
		QuestionID     string `db:"question_id"`
		QuestionBody   string `db:"question_body"`
		Category       string `db:"category"`
		DailyCreatedAt int64  `db:"daily_created_at"`
	}
	if err := r.db.selectInto(ctx, r.db, &rows, r.db.sb.Select(cols...).From("question_messages m").
		Join("question_dailies d ON d.id = m.daily_id").
		Where(sq.Eq{"m.user_id": userID}).OrderBy("m.created_at", "m.id")); err != nil {
		return nil, err
	}
	out := make([]questions.Entry, len(rows))
	for i, row := range rows {
		d := questionDailyRow{ID: row.DailyID, PartnershipID: row.PartnershipID, Day: row.Day, QuestionID: row.QuestionID,
			Body: row.QuestionBody, Category: row.Category, CreatedAt: row.DailyCreatedAt}
		out[i] = questions.Entry{Daily: d.daily(), Message: row.message()}
	}
	return out, nil
}

// questionPurgeChunk bounds the ids of one IN list.
const questionPurgeChunk = 500

// DeleteByUser deletes the reactions to the user's answers and replies
// (through the message_id prefix of uq_question_messages_reaction; MySQL
// cannot delete with a subquery on the same table), then the user's items.
func (r *QuestionRepo) DeleteByUser(ctx context.Context, userID string) error {
	return r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		var ids []string
		if err := r.db.selectInto(ctx, tx, &ids, r.db.sb.Select("id").From("question_messages").
			Where(sq.Eq{"user_id": userID})); err != nil {
			return err
		}
		for len(ids) > 0 {
			n := min(len(ids), questionPurgeChunk)
			if err := r.db.exec(ctx, tx, r.db.sb.Delete("question_messages").Where(sq.Eq{"message_id": ids[:n]})); err != nil {
				return err
			}
			ids = ids[n:]
		}
		return r.db.exec(ctx, tx, r.db.sb.Delete("question_messages").Where(sq.Eq{"user_id": userID}))
	})
}
