package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	sq "github.com/Masterminds/squirrel"

	"tandem/adapters/httpapi"
	"tandem/adapters/sqlstore"
	"tandem/core"
	"tandem/modules/accounts"
	"tandem/modules/events"
	"tandem/modules/memories"
	"tandem/modules/messages"
	"tandem/modules/moods"
)

// The crowd at scale (issue 36): `prepare -spread` writes the couples and a
// realistic spread of what they keep (events, some with reminders; messages;
// memories; image records; notifications; moods; daily questions and their
// answers; the change feed's rows) straight into the tables, in multi-row INSERTs, a few thousand
// rows a transaction. Writing 100,000 couples through the repositories, one
// transaction a row, would take hours on MySQL. The rows are the ones the
// repositories write (their columns, ids, scopes and keys): the benchmarks'
// own users are still written through the stores (fixture.go), and every
// crowd account signs in with crowdPassword, hashed by the app's hasher.

const crowdPassword = "crowd-password"

// spread is how much each couple keeps, on average.
type spread struct {
	eventsPerUser, messagesPerCouple, memoriesPerUser, imagesPerUser int
	notificationsPerUser, moodsPerUser, questionDays                 int
	changesPerCouple                                                 int // rows of the change feed
}

// The default spread's change feed is one active couple's day (BENCHMARKS.md
// "Change feed": 116 rows).
var defaultSpread = spread{eventsPerUser: 12, messagesPerCouple: 15, memoriesPerUser: 2, imagesPerUser: 2,
	notificationsPerUser: 6, moodsPerUser: 5, questionDays: 4, changesPerCouple: 116}

// bulk collects rows per table and writes them, many to a statement.
type bulk struct {
	db    *sqlstore.DB
	sb    sq.StatementBuilderType
	cols  map[string][]string
	rows  map[string][][]any
	order []string
	n     int // rows pending
	total int
}

func newBulk(db *sqlstore.DB) *bulk {
	return &bulk{db: db, sb: sq.StatementBuilder.PlaceholderFormat(sq.Question), cols: map[string][]string{}, rows: map[string][][]any{}}
}

// add queues one row of table; flush writes them when enough are queued.
func (b *bulk) add(ctx context.Context, table string, cols []string, vals ...any) error {
	if _, ok := b.cols[table]; !ok {
		b.cols[table] = cols
		b.order = append(b.order, table)
	}
	b.rows[table] = append(b.rows[table], vals)
	b.n++
	if b.n >= 20_000 {
		return b.flush(ctx)
	}
	return nil
}

// flush writes every queued row in one transaction, at most about 30,000
// placeholders a statement (SQLite allows 32,766, MySQL 65,535).
func (b *bulk) flush(ctx context.Context) error {
	if b.n == 0 {
		return nil
	}
	tx, err := b.db.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, table := range b.order {
		rows, cols := b.rows[table], b.cols[table]
		per := max(1, 30_000/len(cols))
		for len(rows) > 0 {
			n := min(per, len(rows))
			ins := b.sb.Insert(table).Columns(cols...)
			for _, r := range rows[:n] {
				ins = ins.Values(r...)
			}
			q, args, err := ins.ToSql()
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, q, args...); err != nil {
				return fmt.Errorf("bulk %s: %w", table, err)
			}
			rows = rows[n:]
		}
		b.rows[table] = b.rows[table][:0]
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	b.total += b.n
	b.n = 0
	return nil
}

var (
	tokenCols        = []string{"token_hash", "user_id", "created_at", "expires_at", "id"}
	accountCols      = []string{"id", "email", "password_hash", "verified", "created_at", "updated_at"}
	partnershipCols  = []string{"id", "user_a", "user_b", "created_at"}
	memberCols       = []string{"user_id", "partnership_id", "partner_id"}
	relationshipCols = []string{"id", "partnership_id", "member_a", "member_b", "start_date", "is_active", "created_at", "updated_at"}
	messageCols      = []string{"id", "scope", "author_id", "body", "created_at"}
	memoryCols       = []string{"id", "user_id", "title", "description", "memory_date", "images", "created_at", "updated_at"}
	ownerCols        = []string{"user_id"}
	imageCols        = []string{"id", "user_id", "group_id", "seq", "blob_key", "created_at", "updated_at", "size", "width", "height"}
	notificationCols = []string{"id", "user_id", "title", "message", "category", "is_read", "created_at"}
	moodCols         = []string{"id", "user_id", "mood_date", "mood", "note", "partnership_id", "created_at", "updated_at"}
	dailyCols        = []string{"id", "partnership_id", "day", "question_id", "body", "category", "created_at"}
	answerCols       = []string{"id", "daily_id", "user_id", "kind", "body", "created_at"}
	changeCols       = []string{"user_id", "kind", "record_id", "op", "data", "created_at"}
	changeHeadCols   = []string{"user_id", "writes"}
	eventCols        = []string{"id", "user_id", "title", "description", "start_date", "end_date", "start_time", "end_time",
		"location", "event_type", "importance", "notify", "participants", "created_at", "updated_at", "remind_at"}
)

// seedSpread writes n couples and their spread. On MySQL several workers
// write at once; SQLite has one writer.
func seedSpread(ctx context.Context, db *sqlstore.DB, passwordHash string, n int, s spread) (int, error) {
	workers := 1
	if db.Dialect == sqlstore.MySQL {
		workers = 4
	}
	now := time.Now().UTC()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		rows  int
		first error
	)
	for w := range workers {
		wg.Go(func() {
			b := newBulk(db)
			err := func() error {
				for i := w; i < n; i += workers {
					if err := spreadCouple(ctx, b, passwordHash, i, s, now); err != nil {
						return err
					}
				}
				return b.flush(ctx)
			}()
			mu.Lock()
			defer mu.Unlock()
			rows += b.total
			if err != nil && first == nil {
				first = err
			}
		})
	}
	wg.Wait()
	return rows, first
}

// spreadCouple queues couple i: its accounts, partnership, most couples'
// relationship, and what they keep. Counts vary with i around the spread's
// averages, so some users have none and some twice as many.
func spreadCouple(ctx context.Context, b *bulk, hash string, i int, s spread, now time.Time) error {
	a, c := fmt.Sprintf("crowd-%d-a", i), fmt.Sprintf("crowd-%d-b", i)
	pid := "p-" + a
	ms := now.UnixMilli()
	day0 := core.DateOf(now)
	add := func(table string, cols []string, vals ...any) error { return b.add(ctx, table, cols, vals...) }
	for _, u := range []string{a, c} {
		if err := add("accounts", accountCols, u, u+"@bench.tandem", hash, 1, ms, ms); err != nil {
			return err
		}
	}
	if err := add("partnerships", partnershipCols, pid, a, c, ms); err != nil {
		return err
	}
	for _, m := range [][2]string{{a, c}, {c, a}} {
		if err := add("partnership_members", memberCols, m[0], pid, m[1]); err != nil {
			return err
		}
	}
	if i%10 < 7 {
		start := day0.AddDays(-(i % 2000)).String()
		if err := add("relationships", relationshipCols, "r-"+a, pid, a, c, start, 1, ms, ms); err != nil {
			return err
		}
	}
	for k := range vary(s.messagesPerCouple*2, i) {
		author := a
		if k%2 == 1 {
			author = c
		}
		if err := add("messages", messageCols, fmt.Sprintf("m-%s-%d", a, k), messages.ScopeOf(author, pid), author,
			"see you tonight", ms-int64(k)*60_000); err != nil {
			return err
		}
	}
	for k := range s.questionDays {
		did := fmt.Sprintf("q-%s-%d", a, k)
		if err := add("question_dailies", dailyCols, did, pid, day0.AddDays(-k).String(), "q1",
			"What made you smile today?", "fun", ms-int64(k)*86_400_000); err != nil {
			return err
		}
		for j, u := range []string{a, c} {
			if k%3 == 2 && j == 1 {
				continue // not every question is answered by both
			}
			if err := add("question_messages", answerCols, fmt.Sprintf("qa-%s-%d-%d", a, k, j), did, u, "answer",
				"the sunset", ms-int64(k)*86_400_000+int64(j)); err != nil {
				return err
			}
		}
	}
	if err := addChanges(add, a, c, i, s.changesPerCouple, now); err != nil {
		return err
	}
	for j, u := range []string{a, c} {
		seed := 2*i + j
		for k := range vary(s.eventsPerUser*2, seed) {
			if err := addEvent(add, u, k, seed, day0, now); err != nil {
				return err
			}
		}
		if seed%4 == 0 { // a session that ran out: the token purge has work
			if err := add("auth_tokens", tokenCols, accounts.HashToken("expired-"+u), u, ms-100*86_400_000,
				ms-10*86_400_000, "s-"+u); err != nil {
				return err
			}
		}
		nm := vary(s.memoriesPerUser*2, seed)
		if nm > 0 {
			if err := add("memory_owners", ownerCols, u); err != nil {
				return err
			}
		}
		for k := range nm {
			if err := add("memories", memoryCols, fmt.Sprintf("mem-%s-%d", u, k), u, "Our trip", "a good day",
				day0.AddDays(-30*k).String(), "[]", ms-int64(k), ms-int64(k)); err != nil {
				return err
			}
		}
		ni := vary(s.imagesPerUser*2, seed+1)
		if ni > 0 {
			if err := add("image_owners", ownerCols, u); err != nil {
				return err
			}
		}
		for k := range ni {
			key := fmt.Sprintf("%s/crowd-%d", u, k)
			if err := add("images", imageCols, fmt.Sprintf("img-%s-%d", u, k), u, fmt.Sprintf("g-%s", u), k, key,
				ms-int64(k), ms-int64(k), 250_000, 1280, 960); err != nil {
				return err
			}
		}
		for k := range vary(s.notificationsPerUser*2, seed) {
			if err := add("notifications", notificationCols, fmt.Sprintf("n-%s-%d", u, k), u, "Your partner",
				"added an event", "events", boolInt(k > 1), ms-int64(k)*3_600_000); err != nil {
				return err
			}
		}
		for k := range vary(s.moodsPerUser*2, seed) {
			if err := add("moods", moodCols, fmt.Sprintf("mood-%s-%d", u, k), u, day0.AddDays(-k).String(), "good", "",
				pid, ms-int64(k)*86_400_000, ms-int64(k)*86_400_000); err != nil {
				return err
			}
		}
	}
	return nil
}

// addEvent queues the user's k-th event: spread over a year around today,
// one in four with a reminder 30 minutes before 09:00 (a reminder already
// past is not scheduled, as the service does it).
func addEvent(add func(string, []string, ...any) error, user string, k, seed int, day0 core.Date, now time.Time) error {
	day := day0.AddDays((k*29+seed)%365 - 120)
	e := events.Event{ID: fmt.Sprintf("ev-%s-%d", user, k), UserID: user, Title: "Dinner", Description: "At the usual place",
		StartDate: day, EndDate: day, Location: "Home", Type: events.TypeDate, Importance: events.ImportanceMedium}
	var notify, remindAt any
	if (k+seed)%4 == 0 {
		e.StartTime = events.WallTime{TimeOfDay: core.TimeOfDay{Hour: 9}, Set: true}
		e.Notify = events.Notify{Minutes: 30, Set: true}
		notify = 30
		if at, ok := e.ReminderAt(time.UTC); ok && at.After(now) {
			remindAt = at.UnixMilli()
		} else if (k+seed)%100 == 0 {
			// Due and not yet sent, as after a pause of the job: one
			// pass of the reminder claims has work.
			remindAt = now.Add(-time.Duration(k+1) * time.Minute).UnixMilli()
		}
	}
	ms := now.UnixMilli()
	return add("events", eventCols, e.ID, user, e.Title, e.Description, day.String(), day.String(), e.StartTime.String(), "",
		e.Location, string(e.Type), string(e.Importance), notify, "[]", ms, ms, remindAt)
}

// addChanges queues couple i's change feed: around perCouple rows (some
// couples none, some twice as many), in the mix of an active couple's day,
// one row per reader (of 58 writes: 50 messages, 5 events and 2 moods to
// both, a memory to its owner), each with the JSON of a record of its kind
// as the stores render it, their times spread over the last 31 days (the
// retention is 30: the purge has work); and each partner's feed head.
func addChanges(add func(string, []string, ...any) error, a, c string, i, perCouple int, now time.Time) error {
	n := vary(perCouple*2, i)
	if n == 0 {
		return nil
	}
	data, err := changeData(a, now)
	if err != nil {
		return err
	}
	for k := range n {
		reader, w := a, (k/2)%58
		if k%2 == 1 {
			reader = c
		}
		kind := core.ChangeMessage
		switch {
		case w >= 57:
			kind = core.ChangeMemory
		case w >= 55:
			kind = core.ChangeMood
		case w >= 50:
			kind = core.ChangeEvent
		}
		at := now.Add(-time.Duration((k*7919+i)%(31*24*60)) * time.Minute)
		if err := add("changes", changeCols, reader, kind, fmt.Sprintf("%s-%s-%d", kind, a, k/2), string(core.ChangePut),
			data[kind], at.UnixMilli()); err != nil {
			return err
		}
	}
	for _, u := range []string{a, c} {
		if err := add("change_heads", changeHeadCols, u, (n+1)/2); err != nil {
			return err
		}
	}
	return nil
}

// changeData is the JSON of one record of each kind of the feed's mix, as
// httpapi.RenderChange renders it into a change.
func changeData(u string, now time.Time) (map[string]string, error) {
	day := core.DateOf(now)
	recs := map[string]any{
		core.ChangeMessage: messages.Message{ID: "m-" + u, Scope: "p-" + u, AuthorID: u, Body: "see you tonight", CreatedAt: now},
		core.ChangeEvent: events.Read{Event: events.Event{ID: "ev-" + u, UserID: u, Title: "Dinner", Description: "At the usual place",
			StartDate: day, EndDate: day, Location: "Home", Type: events.TypeDate, Importance: events.ImportanceMedium,
			CreatedAt: now, UpdatedAt: now}},
		core.ChangeMood: moods.Mood{ID: "mood-" + u, UserID: u, Level: moods.Good, Date: day, PartnershipID: "p-" + u,
			CreatedAt: now, UpdatedAt: now},
		core.ChangeMemory: memories.Memory{ID: "mem-" + u, UserID: u, Title: "Our trip", Description: "a good day", Date: day,
			Images: []string{}, CreatedAt: now, UpdatedAt: now},
	}
	out := make(map[string]string, len(recs))
	for kind, rec := range recs {
		b, err := httpapi.RenderChange(rec)
		if err != nil {
			return nil, fmt.Errorf("render a %s: %w", kind, err)
		}
		out[kind] = string(b)
	}
	return out, nil
}

// vary is a count around avg/2 for seed: 0 up to avg-1, evenly.
func vary(avg, seed int) int {
	if avg <= 0 {
		return 0
	}
	return (seed*7919 + seed/3) % avg
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// spreadFlag parses -spread "events=12,messages=15,...": per-user (or per
// couple) averages; "default" is defaultSpread.
func parseSpread(s string) (spread, error) {
	out := defaultSpread
	if s == "" || s == "default" {
		return out, nil
	}
	fields := map[string]*int{"changes": &out.changesPerCouple, "events": &out.eventsPerUser, "messages": &out.messagesPerCouple, "memories": &out.memoriesPerUser,
		"images": &out.imagesPerUser, "notifications": &out.notificationsPerUser, "moods": &out.moodsPerUser, "questions": &out.questionDays}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		p := fields[k]
		if !ok || p == nil {
			return spread{}, fmt.Errorf("-spread: %q is not NAME=COUNT (names: events, messages, memories, images, notifications, moods, questions, changes)", kv)
		}
		if _, err := fmt.Sscanf(v, "%d", p); err != nil || *p < 0 {
			return spread{}, fmt.Errorf("-spread: %q: a count of 0 or more", kv)
		}
	}
	return out, nil
}
