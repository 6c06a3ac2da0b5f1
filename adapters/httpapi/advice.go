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

func (h *adviceHandler) today(c *fiber.Ctx) error {
	d, err := h.svc.Today(c.UserContext(), c.Params("userId"))
	if err != nil {
		return err
	}
	return c.JSON(adviceJSON{CreationTime: core.Millis(d.CreatedAt), ID: d.ID, Advice: d.Text, Theme: string(d.Theme)})
}
