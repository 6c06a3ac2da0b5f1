// Package questions holds the shared daily question: each couple gets one
// question per date from a bank written for the app, both partners answer it
// independently, and a chat-like conversation of answers, replies and
// reactions grows under it. A partner's answer stays locked until the reader
// has answered too, and a question returns to a couple no sooner than
// RepeatWindowDays later.
package questions

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"tandem/core"
)

// Category groups the bank's questions.
type Category string

const (
	CategoryFun       Category = "fun"
	CategoryDeep      Category = "deep"
	CategoryMemories  Category = "memories"
	CategoryFuture    Category = "future"
	CategoryGratitude Category = "gratitude"
	CategoryIntimacy  Category = "intimacy"
	CategoryEveryday  Category = "everyday"
)

// Categories are every category, in the bank's order.
var Categories = []Category{CategoryFun, CategoryDeep, CategoryMemories, CategoryFuture, CategoryGratitude,
	CategoryIntimacy, CategoryEveryday}

// Valid reports whether c is one of Categories.
func (c Category) Valid() bool {
	for _, k := range Categories {
		if c == k {
			return true
		}
	}
	return false
}

// Question is one question of the bank. Its ID is stable: it is what the
// repeat rule compares, so texts may be polished without a repeat.
type Question struct {
	ID       string
	Text     string
	Category Category
}

// Daily is the question a couple got for one date. Text and Category are
// copied from the bank when it is picked, so history shows what was asked
// even after the bank changes.
type Daily struct {
	ID            string
	PartnershipID string
	Date          core.Date
	QuestionID    string
	Text          string
	Category      Category
	CreatedAt     time.Time
}

// Kind is what a conversation item is.
type Kind string

const (
	KindAnswer   Kind = "answer"
	KindReply    Kind = "reply"
	KindReaction Kind = "reaction"
)

// Message is one item of a daily question's conversation. An answer and a
// reply carry Text (a reply may point at the item it answers with ReplyTo);
// a reaction carries Reaction and the item it reacts to in MessageID.
type Message struct {
	ID        string
	DailyID   string
	UserID    string
	Kind      Kind
	Text      string
	Reaction  string
	ReplyTo   string
	MessageID string
	CreatedAt time.Time
}

// Entry is one of a user's messages with the question it belongs to (export).
type Entry struct {
	Daily   Daily
	Message Message
}

const (
	// RepeatWindowDays: a question returns to a couple no sooner than this
	// many days later. Dates are compared both ways, because a partner far
	// east opens tomorrow's question while the other is still on today's.
	RepeatWindowDays = 30
	MaxText          = 2000 // characters of an answer or a reply
	MaxReaction      = 16   // characters of a reaction (an emoji or a short word)
	DefaultHistory   = 30   // questions per history page without limit
	MaxHistory       = 100  // largest history page
)

// NearbyFrom and NearbyTo bound the dates whose questions day's pick must
// avoid: every date less than RepeatWindowDays away, either side.
func NearbyFrom(day core.Date) core.Date { return day.AddDays(-(RepeatWindowDays - 1)) }
func NearbyTo(day core.Date) core.Date   { return day.AddDays(RepeatWindowDays - 1) }

// Pick chooses the question of day for a couple with core.PickDaily: no repeat
// within the window, another category than the days around it when it can.
func Pick(bank []Question, partnershipID string, day core.Date, nearby []Daily) Question {
	given := make([]core.Given, len(nearby))
	for i, d := range nearby {
		given[i] = core.Given{Date: d.Date, ID: d.QuestionID, Group: string(d.Category)}
	}
	key := func(q Question) (string, string) { return q.ID, string(q.Category) }
	return core.PickDaily(bank, key, partnershipID, day, given)
}

// Post is what a user adds to today's conversation: an Answer, a Reply or
// a React. The HTTP adapter maps the request's action to one of them.
type Post interface{ post() }

// Answer is the user's one answer to today's question.
type Answer struct{ Text string }

// Reply is a reply in today's conversation, to an item of it when ReplyTo is set.
type Reply struct{ Text, ReplyTo string }

// React is a reaction to an answer or reply of today's conversation.
type React struct{ MessageID, Reaction string }

func (Answer) post() {}
func (Reply) post()  {}
func (React) post()  {}

// validatePost checks a post's fields and returns it trimmed.
func validatePost(p Post) (Post, error) {
	switch p := p.(type) {
	case Answer:
		p.Text = strings.TrimSpace(p.Text)
		return p, validateText(p.Text)
	case Reply:
		p.Text, p.ReplyTo = strings.TrimSpace(p.Text), strings.TrimSpace(p.ReplyTo)
		return p, validateText(p.Text)
	case React:
		p.MessageID, p.Reaction = strings.TrimSpace(p.MessageID), strings.TrimSpace(p.Reaction)
		if p.MessageID == "" {
			return nil, core.Required("messageId")
		}
		return p, validateReaction(p.Reaction)
	}
	return nil, core.InvalidRequest("questions.postAnswerReplyReaction", "post an answer, a reply or a reaction")
}

func validateText(s string) error {
	if s == "" {
		return core.Required("text")
	}
	if utf8.RuneCountInString(s) > MaxText {
		return core.TooLong("text", MaxText)
	}
	return core.CheckText("text", s, true)
}

func validateReaction(s string) error {
	if s == "" {
		return core.Required("reaction")
	}
	if utf8.RuneCountInString(s) > MaxReaction {
		return core.TooLong("reaction", MaxReaction)
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return core.InvalidRequest("questions.reactionNotHoldControlCharacters", "reaction must not hold control characters")
		}
	}
	return core.CheckText("reaction", s, false)
}

// Item is a conversation item as one reader sees it: the partner's answers
// and replies are Locked, without text, until the reader has answered.
type Item struct {
	Message
	Locked bool
}

// View is a daily question as one partner sees it.
type View struct {
	Daily             Daily
	Conversation      []Item // oldest first; never nil
	AnsweredByMe      bool
	AnsweredByPartner bool
	// Streak is the couple's streak when the view is the question of the
	// reader's today (Today, Act and the live events); History leaves it
	// zero: it belongs to the couple, not to one question.
	Streak Streak
}

// viewFor shapes d's conversation (oldest first) for reader.
func viewFor(reader string, d Daily, msgs []Message) View {
	v := View{Daily: d, Conversation: make([]Item, 0, len(msgs))}
	for _, m := range msgs {
		if m.Kind == KindAnswer {
			if m.UserID == reader {
				v.AnsweredByMe = true
			} else {
				v.AnsweredByPartner = true
			}
		}
	}
	for _, m := range msgs {
		it := Item{Message: m}
		if m.UserID != reader && !v.AnsweredByMe && m.Kind != KindReaction {
			it.Locked, it.Text = true, ""
		}
		v.Conversation = append(v.Conversation, it)
	}
	return v
}

// Streak is a couple's question streak: runs of consecutive dates on which
// both partners answered that date's question. Current is the run that
// reaches the couple's today, or yesterday while today is still open; Best is
// the longest run of the partnership. Both are derived from the stored
// answers, never counted, so they cannot drift.
type Streak struct{ Current, Best int }

// StreakOf computes the streak as of today from days, the dates whose
// question both partners answered (ascending, each once). A date without
// both answers breaks the current run only once it has passed: while today
// is open, the run ending yesterday is still current. A run that holds today
// or yesterday counts whole.
func StreakOf(days []core.Date, today core.Date) Streak {
	var s Streak
	yesterday := today.AddDays(-1)
	run, current := 0, false
	for i, d := range days {
		if i > 0 && d == days[i-1].AddDays(1) {
			run++
		} else {
			run, current = 1, false
		}
		current = current || d == today || d == yesterday
		if current {
			s.Current = run
		}
		s.Best = max(s.Best, run)
	}
	return s
}

// answered reports whether userID has answered in msgs.
func answered(userID string, msgs []Message) bool {
	for _, m := range msgs {
		if m.Kind == KindAnswer && m.UserID == userID {
			return true
		}
	}
	return false
}

// target finds the answer or reply id in msgs, the only items one may reply
// or react to.
func target(id string, msgs []Message) error {
	for _, m := range msgs {
		if m.ID != id {
			continue
		}
		if m.Kind == KindReaction {
			return core.InvalidRequest("questions.canReplyReactAnswersReplies", "you can reply and react to answers and replies only")
		}
		return nil
	}
	return core.NotFound("not_found", "questions.noSuchMessageTodayConversation", "no such message in today's conversation")
}

func errNotPaired() error {
	return core.Conflict("not_paired", "questions.dailyQuestionCouplesPairPartner", "the daily question is for couples: pair with your partner first")
}

// HistoryCursor is the cursor after a history page whose last date is d.
func HistoryCursor(d core.Date) string { return core.EncodeCursor(d.String()) }

// ParseHistoryCursor reverses HistoryCursor; anything else is a 400.
func ParseHistoryCursor(s string) (core.Date, error) {
	parts, err := core.DecodeCursor(s, 1)
	if err != nil {
		return core.Date{}, err
	}
	d, err := core.ParseDate(parts[0])
	if err != nil {
		return core.Date{}, core.Invalid("invalid_request", "core.cursorNotOneServerHanded", "cursor is not one this server handed out")
	}
	return d, nil
}
