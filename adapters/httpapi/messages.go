package httpapi

import (
	"github.com/gofiber/fiber/v2"

	"tandem/core"
	"tandem/modules/messages"
)

var _ = documentRulesOf("messages", messages.Rules)

type messagesHandler struct {
	svc  *messages.Service
	cfg  Config
	idem *Idempotency
}

func NewMessagesHandler(svc *messages.Service, cfg Config, idem *Idempotency) *messagesHandler {
	return &messagesHandler{svc: svc, cfg: cfg, idem: idem}
}

func (h *messagesHandler) Register(r fiber.Router) {
	// The service key alone proves nothing (it ships in the app): the bearer
	// token is required too, before the body is even read.
	g := r.Group("/api/messages", requireAPIKey(h.cfg.APIKeys), requireUser)
	g.Get("/list", h.list)
	g.Post("/send", h.idem.Guard, h.send)
}

// messageJSON is the spec's message record. Field names are the app's
// contract: do not rename.
type messageJSON struct {
	ID        string `json:"id"`
	Body      string `json:"body"`
	Author    string `json:"author"`
	CreatedAt int64  `json:"createdAt"`
}

func toMessageJSON(m messages.Message) messageJSON {
	return messageJSON{ID: m.ID, Body: m.Body, Author: m.AuthorID, CreatedAt: core.Millis(m.CreatedAt)}
}

// toMessagesJSON is the list: a bare array, never null.
func toMessagesJSON(ms []messages.Message) []messageJSON {
	out := make([]messageJSON, 0, len(ms))
	for _, m := range ms {
		out = append(out, toMessageJSON(m))
	}
	return out
}

// messageExportJSON is a message in the account export: the record plus the
// partnership whose thread holds it (null: the solo thread).
type messageExportJSON struct {
	messageJSON
	PartnershipID *string `json:"partnershipId"`
}

// toMessagesExportJSON renders the account export's messages section (export.go).
var _ = exportSection(toMessagesExportJSON)

func toMessagesExportJSON(ms []messages.ExportedMessage) []messageExportJSON {
	out := make([]messageExportJSON, 0, len(ms))
	for _, m := range ms {
		out = append(out, messageExportJSON{messageJSON: toMessageJSON(m.Message), PartnershipID: orNull(m.PartnershipID)})
	}
	return out
}

// sendRequest is the body of POST /api/messages/send.
type sendRequest struct {
	Body *string `json:"body"`
}

// sentReply is the spec's {success} plus the stored message's id and
// createdAt, so the app can place it without reading the list again.
type sentReply struct {
	Success   bool   `json:"success"`
	ID        string `json:"id"`
	CreatedAt int64  `json:"createdAt"`
}

func (h *messagesHandler) list(c *fiber.Ctx) error {
	p, err := principal(c)
	if err != nil {
		return err
	}
	page, err := parsePage(c)
	if err != nil {
		return err
	}
	ms, next, err := h.svc.List(c.UserContext(), p.UserID, page)
	if err != nil {
		return err
	}
	setNextCursor(c, next)
	return c.JSON(toMessagesJSON(ms))
}

func (h *messagesHandler) send(c *fiber.Ctx) error {
	p, err := principal(c)
	if err != nil {
		return err
	}
	var in sendRequest
	if err := BindJSON(c, &in); err != nil {
		return err
	}
	m, err := h.svc.Send(c.UserContext(), p.UserID, str(in.Body))
	if err != nil {
		return err
	}
	return c.JSON(sentReply{Success: true, ID: m.ID, CreatedAt: core.Millis(m.CreatedAt)})
}
