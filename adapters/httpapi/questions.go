package httpapi

import (
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"tandem/core"
	"tandem/modules/questions"
)

var _ = documentRulesOf("questions", questions.Rules)

type questionsHandler struct {
	svc  *questions.Service
	idem *Idempotency
}

func NewQuestionsHandler(svc *questions.Service, idem *Idempotency) *questionsHandler {
	return &questionsHandler{svc: svc, idem: idem}
}

func (h *questionsHandler) Register(r fiber.Router) {
	g := r.Group("/api/users/user/:userId/daily-question", requireSelf)
	g.Get("/history", h.history) // before anything parametric that may come later
	g.Get("/", h.today)
	g.Post("/", h.idem.Guard, h.act)
}

// The reply bodies. Field names are the app's contract: do not rename.
type dailyQuestionJSON struct {
	ID       string `json:"id"`
	Text     string `json:"text"`
	Category string `json:"category"`
	Date     string `json:"date"`
}

// conversationItemJSON carries text on answers and replies (left out while
// locked), reaction and messageId on reactions, replyTo on replies that
// point at an item, and locked only when true.
type conversationItemJSON struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	UserID    string `json:"userId"`
	Text      string `json:"text,omitempty"`
	Reaction  string `json:"reaction,omitempty"`
	ReplyTo   string `json:"replyTo,omitempty"`
	MessageID string `json:"messageId,omitempty"`
	Locked    bool   `json:"locked,omitempty"`
	Timestamp int64  `json:"timestamp"`
}

type dailyQuestionView struct {
	Question          dailyQuestionJSON      `json:"question"`
	Conversation      []conversationItemJSON `json:"conversation"`
	AnsweredByMe      bool                   `json:"answeredByMe"`
	AnsweredByPartner bool                   `json:"answeredByPartner"`
}

// streakJSON is the couple's question streak in days.
type streakJSON struct {
	Current int `json:"current"`
	Best    int `json:"best"`
}

// dailyQuestionToday is the question of the caller's today with the couple's
// streak: the GET body less success, and the record of the live events.
// History items are the view alone: the streak is not one question's.
type dailyQuestionToday struct {
	dailyQuestionView
	Streak streakJSON `json:"streak"`
}

type dailyQuestionReply struct {
	Success bool `json:"success"`
	dailyQuestionToday
}

type questionHistoryReply struct {
	Success   bool                `json:"success"`
	Questions []dailyQuestionView `json:"questions"`
}

func toDailyQuestionView(v questions.View) dailyQuestionView {
	out := dailyQuestionView{
		Question: dailyQuestionJSON{ID: v.Daily.ID, Text: v.Daily.Text, Category: string(v.Daily.Category),
			Date: v.Daily.Date.String()},
		Conversation: make([]conversationItemJSON, len(v.Conversation)),
		AnsweredByMe: v.AnsweredByMe, AnsweredByPartner: v.AnsweredByPartner,
	}
	for i, it := range v.Conversation {
		out.Conversation[i] = toConversationItemJSON(it)
	}
	return out
}

func toDailyQuestionToday(v questions.View) dailyQuestionToday {
	return dailyQuestionToday{dailyQuestionView: toDailyQuestionView(v),
		Streak: streakJSON{Current: v.Streak.Current, Best: v.Streak.Best}}
}

func toConversationItemJSON(it questions.Item) conversationItemJSON {
	return conversationItemJSON{ID: it.ID, Type: string(it.Kind), UserID: it.UserID, Text: it.Text,
		Reaction: it.Reaction, ReplyTo: it.ReplyTo, MessageID: it.MessageID, Locked: it.Locked,
		Timestamp: core.Millis(it.CreatedAt)}
}

// questionExportJSON is one of the user's conversation items in the account
// export: the item as the conversation shows it, with its question's date
// and text.
type questionExportJSON struct {
	conversationItemJSON
	Date     string `json:"date"`
	Question string `json:"question"`
}

// toQuestionsExportJSON renders the account export's questions section (export.go).
var _ = exportSection(toQuestionsExportJSON)

func toQuestionsExportJSON(es []questions.Entry) []questionExportJSON {
	out := make([]questionExportJSON, len(es))
	for i, e := range es {
		out[i] = questionExportJSON{conversationItemJSON: toConversationItemJSON(questions.Item{Message: e.Message}),
			Date: e.Daily.Date.String(), Question: e.Daily.Text}
	}
	return out
}

func (h *questionsHandler) today(c *fiber.Ctx) error {
	v, err := h.svc.Today(c.UserContext(), c.Params("userId"))
	if err != nil {
		return err
	}
	return c.JSON(dailyQuestionReply{Success: true, dailyQuestionToday: toDailyQuestionToday(v)})
}

func (h *questionsHandler) act(c *fiber.Ctx) error {
	var in questionRequest
	if err := BindJSON(c, &in); err != nil {
		return err
	}
	p, err := in.post()
	if err != nil {
		return err
	}
	v, err := h.svc.Act(c.UserContext(), c.Params("userId"), p)
	if err != nil {
		return err
	}
	return c.JSON(dailyQuestionReply{Success: true, dailyQuestionToday: toDailyQuestionToday(v)})
}

// history pages by ?limit= (1 to 100, default 30) and ?cursor=; the cursor
// of the next page comes in X-Next-Cursor.
func (h *questionsHandler) history(c *fiber.Ctx) error {
	page := core.Page{Cursor: c.Query("cursor")}
	if s := c.Query("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > questions.MaxHistory {
			return core.Invalid("invalid_request", "httpapi.limitWholeNumber1100", "limit must be a whole number from 1 to 100")
		}
		page.Limit = n
	}
	vs, next, err := h.svc.History(c.UserContext(), c.Params("userId"), page)
	if err != nil {
		return err
	}
	out := questionHistoryReply{Success: true, Questions: make([]dailyQuestionView, len(vs))}
	for i, v := range vs {
		out.Questions[i] = toDailyQuestionView(v)
	}
	setNextCursor(c, next)
	return c.JSON(out)
}

// questionRequest is the POST body: an answer, a reply or a reaction, told
// apart by action. Fields of another action are refused, so a client
// mistake is not silently dropped.
type questionRequest struct {
	Action    string `json:"action"`
	Text      string `json:"text"`
	ReplyTo   string `json:"replyTo"`
	MessageID string `json:"messageId"`
	Reaction  string `json:"reaction"`
}

func (in questionRequest) post() (questions.Post, error) {
	set := func(fields ...string) bool {
		for _, f := range fields {
			if strings.TrimSpace(f) != "" {
				return true
			}
		}
		return false
	}
	switch in.Action {
	case "answer":
		if set(in.ReplyTo, in.MessageID, in.Reaction) {
			return nil, core.Invalid("invalid_request", "httpapi.answerTakesTextOnly", "an answer takes text only")
		}
		return questions.Answer{Text: in.Text}, nil
	case "reply":
		if set(in.MessageID, in.Reaction) {
			return nil, core.Invalid("invalid_request", "httpapi.replyTakesTextOptionallyReplyTo", "a reply takes text and, optionally, replyTo")
		}
		return questions.Reply{Text: in.Text, ReplyTo: in.ReplyTo}, nil
	case "react":
		if set(in.Text, in.ReplyTo) {
			return nil, core.Invalid("invalid_request", "httpapi.reactionTakesMessageIdReaction", "a reaction takes messageId and reaction")
		}
		return questions.React{MessageID: in.MessageID, Reaction: in.Reaction}, nil
	}
	return nil, checkAction(in.Action, "answer", "reply", "react")
}
