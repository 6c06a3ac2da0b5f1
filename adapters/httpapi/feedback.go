package httpapi

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"tandem/core"
	"tandem/modules/feedback"
)

var _ = documentRulesOf("feedback", feedback.Rules)

type feedbackHandler struct {
	svc  *feedback.Service
	idem *Idempotency
}

func NewFeedbackHandler(svc *feedback.Service, idem *Idempotency) *feedbackHandler {
	return &feedbackHandler{svc: svc, idem: idem}
}

func (h *feedbackHandler) Register(r fiber.Router) {
	r.Post("/api/users/user/:userId/feedback", requireSelf, h.idem.Guard, h.submit)
	r.Get("/api/users/user/:userId/feedback", requireSelf, h.list)
	r.Get("/api/admin/feedback", requireAdmin, h.listAll)
}

// feedbackJSON is one listed feedback message. Field names are the app's
// contract: do not rename. createdAt is dd/mm/yyyy (UTC), as the spec
// writes feedback dates; timestamp is the instant in milliseconds.
type feedbackJSON struct {
	FeedbackID      string `json:"feedbackId"`
	FeedbackMessage string `json:"feedbackMessage"`
	UserID          string `json:"userId"`
	CreatedAt       string `json:"createdAt"`
	Timestamp       int64  `json:"timestamp"`
}

type feedbackListReply struct {
	Success  bool           `json:"success"`
	Feedback []feedbackJSON `json:"feedback"`
}

type feedbackSubmitReply struct {
	Success    bool   `json:"success"`
	FeedbackID string `json:"feedbackId"`
	Message    string `json:"message"`
}

func (h *feedbackHandler) submit(c *fiber.Ctx) error {
	var in struct {
		FeedbackMessage string `json:"feedbackMessage"`
	}
	if err := BindJSON(c, &in); err != nil {
		return err
	}
	f, err := h.svc.Submit(c.UserContext(), c.Params("userId"), in.FeedbackMessage)
	if err != nil {
		return err
	}
	return c.JSON(feedbackSubmitReply{Success: true, FeedbackID: f.ID, Message: say(c, "httpapi.thankFeedback", "Thank you for your feedback")})
}

func (h *feedbackHandler) list(c *fiber.Ctx) error {
	page, err := parsePage(c)
	if err != nil {
		return err
	}
	fs, next, err := h.svc.List(c.UserContext(), c.Params("userId"), page)
	if err != nil {
		return err
	}
	setNextCursor(c, next)
	return c.JSON(toFeedbackList(fs))
}

func (h *feedbackHandler) listAll(c *fiber.Ctx) error {
	page, err := parsePage(c)
	if err != nil {
		return err
	}
	state, err := feedback.ParseState(c.Query("state"))
	if err != nil {
		return err
	}
	fs, next, err := h.svc.ListByState(c.UserContext(), state, page)
	if err != nil {
		return err
	}
	setNextCursor(c, next)
	return c.JSON(toFeedbackList(fs))
}

func toFeedbackList(fs []feedback.Feedback) feedbackListReply {
	return feedbackListReply{Success: true, Feedback: toFeedbackJSON(fs)}
}

// toFeedbackJSON renders the account export's feedback section (export.go).
var _ = exportSection(toFeedbackJSON)

func toFeedbackJSON(fs []feedback.Feedback) []feedbackJSON {
	out := make([]feedbackJSON, len(fs))
	for i, f := range fs {
		out[i] = feedbackJSON{FeedbackID: f.ID, FeedbackMessage: f.Message, UserID: f.UserID, CreatedAt: FeedbackDate(f.CreatedAt),
			Timestamp: core.Millis(f.CreatedAt)}
	}
	return out
}

// FeedbackRecord is a message as the audit log keeps it: the API's
// fields and the handled mark.
func FeedbackRecord(f feedback.Feedback) any {
	out := struct {
		feedbackJSON
		HandledAt *int64 `json:"handledAt"`
		HandledBy string `json:"handledBy,omitempty"`
	}{feedbackJSON: toFeedbackJSON([]feedback.Feedback{f})[0], HandledBy: f.HandledBy}
	if f.Handled() {
		ms := core.Millis(f.HandledAt)
		out.HandledAt = &ms
	}
	return out
}

// FeedbackDate is the day feedback was sent in the spec's dd/mm/yyyy, in
// UTC: one rule for the user's history, the administrators' list and the
// export (the exact instant goes alongside, in milliseconds, for clients
// that show local dates).
func FeedbackDate(at time.Time) string { return at.UTC().Format("02/01/2006") }
