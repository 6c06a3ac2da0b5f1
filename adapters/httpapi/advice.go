package httpapi

import (
	"github.com/gofiber/fiber/v2"

	"tandem/core"
	"tandem/modules/advice"
)

type adviceHandler struct{ svc *advice.Service }

func NewAdviceHandler(svc *advice.Service) *adviceHandler { return &adviceHandler{svc: svc} }

func (h *adviceHandler) Register(r fiber.Router) {
	r.Get("/api/users/user/:userId/advice", requireSelf, h.today)
}

// adviceJSON is the spec's advice record. Field names are the app's
// contract: do not rename.
type adviceJSON struct {
	CreationTime int64  `json:"_creationTime"`
	ID           string `json:"_id"`
	Advice       string `json:"advice"`
	Theme        string `json:"theme"`
}

func toAdviceJSON(d advice.Daily) adviceJSON {
	return adviceJSON{CreationTime: core.Millis(d.CreatedAt), ID: d.ID, Advice: d.Text, Theme: string(d.Theme)}
}

// adviceExportJSON is one day's advice in the account export: the record
// plus the day it was given for.
type adviceExportJSON struct {
	adviceJSON
	Date string `json:"date"`
}

// toAdviceExportJSON renders the account export's advice section (export.go).
var _ = exportSection(toAdviceExportJSON)

func toAdviceExportJSON(ds []advice.Daily) []adviceExportJSON {
	out := make([]adviceExportJSON, len(ds))
	for i, d := range ds {
		out[i] = adviceExportJSON{adviceJSON: toAdviceJSON(d), Date: d.Date.String()}
	}
	return out
}

func (h *adviceHandler) today(c *fiber.Ctx) error {
	d, err := h.svc.Today(c.UserContext(), c.Params("userId"))
	if err != nil {
		return err
	}
	return c.JSON(toAdviceJSON(d))
}
