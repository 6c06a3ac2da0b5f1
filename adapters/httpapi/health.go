package httpapi

import (
	"context"

	"github.com/gofiber/fiber/v2"
)

// Pinger answers whether the storage is reachable.
type Pinger interface {
	Ping(ctx context.Context) error
}

type healthHandler struct{ db Pinger }

func NewHealthHandler(db Pinger) *healthHandler { return &healthHandler{db: db} }

func (h *healthHandler) Register(r fiber.Router) {
	r.Get("/healthz", h.live)
	r.Get("/readyz", h.ready)
}

// live says the process serves; it never touches dependencies.
func (h *healthHandler) live(c *fiber.Ctx) error {
	return c.JSON(fiber.Map{"status": "ok"})
}

// ready says this process can do useful work: the database answers.
func (h *healthHandler) ready(c *fiber.Ctx) error {
	if err := h.db.Ping(c.UserContext()); err != nil {
		return err
	}
	return c.JSON(fiber.Map{"status": "ready"})
}
