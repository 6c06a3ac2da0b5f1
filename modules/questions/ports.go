package questions

import (
	"context"
	"time"

	"tandem/core"
)

//go:generate go run go.uber.org/mock/mockgen@v0.6.0 -typed -destination=mock_ports_test.go -package=questions_test . Notifier

// Repository stores the couples' daily questions and their conversations.
// Every method is one transaction. A couple has at most one question per
// date and a user at most one answer per question, and at most one reaction
// per item: the storage enforces all three.
type Repository interface {
	// Open returns the partnership's question for day. When there is none
	// yet it calls pick with the partnership's questions of the dates
	// NearbyFrom(day)..NearbyTo(day) (in date order) and stores what pick
	// returns, all at once: of two concurrent first calls for a date, one
	// picks and both return its question. An error from pick is returned
	// and nothing is stored. opened (may be nil) is called in the write's
	// transaction, at the end of each attempt that gets that far, with the
	// question and whether this attempt picked it: the feed's change of a
	// pick is made by the attempt that commits, never by one rolled back.
	Open(ctx context.Context, partnershipID string, day core.Date, pick func(nearby []Daily) (Daily, error), opened func(d Daily, picked bool)) (Daily, error)
	// Find returns the partnership's question for day without picking one;
	// core.KindNotFound when neither partner has opened that date.
	Find(ctx context.Context, partnershipID string, day core.Date) (Daily, error)
	// Conversation returns the partnership's question for day and its
	// conversation (in Messages' order) in one read; core.KindNotFound when
	// neither partner has opened that date.
	Conversation(ctx context.Context, partnershipID string, day core.Date) (Daily, []Message, error)
	// History returns the partnership's questions of dates up to until,
	// newest first: page.Size() of them after page.Cursor, and the cursor of
	// the next page when page.Paged() and more follow (else ""). A cursor it
	// did not hand out is core.KindInvalid.
	History(ctx context.Context, partnershipID string, until core.Date, page core.Page) ([]Daily, string, error)
	// Messages returns the conversations of the questions dailyIDs, oldest
	// first (by CreatedAt, then id).
	Messages(ctx context.Context, dailyIDs []string) ([]Message, error)
	// AddMessage stores an answer or a reply. A second answer of the same
	// user to the same question is core.KindConflict.
	AddMessage(ctx context.Context, m Message) error
	// React stores the reaction m of m.UserID to m.MessageID. When the user
	// already reacted to that item, their reaction is replaced: it keeps its
	// id and takes m's Reaction and CreatedAt. It returns the stored reaction.
	React(ctx context.Context, m Message) (Message, error)
	// AnsweredByBoth returns the dates of the partnership's questions that
	// both partners answered (two answers: one per user and question),
	// oldest first; the streak is computed from them. Replies and reactions
	// do not count.
	AnsweredByBoth(ctx context.Context, partnershipID string) ([]core.Date, error)
	// MessagesByUser returns every message of the user with its question,
	// oldest first.
	MessagesByUser(ctx context.Context, userID string) ([]Entry, error)
	// DeleteByUser removes the user's messages and every reaction to them
	// (a reaction to nothing means nothing); it is idempotent. The couple's
	// questions stay: they hold nothing of the user's.
	DeleteByUser(ctx context.Context, userID string) error
}

// Partnerships resolves the caller's current partnership (partners.Service):
// a daily question belongs to a couple.
type Partnerships interface {
	PartnershipOf(ctx context.Context, userID string) (partnershipID, partnerID string, ok bool, err error)
}

// Users gives a user's timezone (accounts.Service), UTC when unset: each
// partner's today is the date in their own zone. It returns
// core.KindNotFound (user_not_found) for an unknown user.
type Users interface {
	Location(ctx context.Context, userID string) (*time.Location, error)
	Locale(ctx context.Context, userID string) (string, error)
}

// Notifier sends a notification to a user (the notifications module: saved
// in the inbox, pushed when the user's settings allow the category). The
// answer it announces is already stored, so its error never fails the
// answer: the bootstrap adapter logs failures.
type Notifier interface {
	Notify(ctx context.Context, userID, category string, text core.Message) error
}
