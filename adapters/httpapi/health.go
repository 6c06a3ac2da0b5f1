package httpapi

import (
	"context"

	"github.com/gofiber/fiber/v2"

	"tandem/core"
)

// Pinger answers whether the storage is reachable.
type Pinger interface {
	Ping(ctx context.Context) error
}

type healthHandler struct {
	db    Pinger
	drain *Drain
}

func NewHealthHandler(db Pinger, drain *Drain) *healthHandler {
	return &healthHandler{db: db, drain: drain}
}

func (h *healthHandler) Register(r fiber.Router) {
	r.Get("/healthz", h.live)
	r.Get("/readyz", h.ready)
}

// live says the process serves; it never touches dependencies.
func (h *healthHandler) live(c *fiber.Ctx) error {
	return c.JSON(fiber.Map{"status": "ok"})
}

// ready says this process can do useful work: it is not stopping and the
// database answers.
func (h *healthHandler) ready(c *fiber.Ctx) error {
	if h.drain.Draining() {
		return core.Unavailable("unavailable", "the server is stopping")
	}
	if err := h.db.Ping(c.UserContext()); err != nil {
		return err
	}
	return c.JSON(fiber.Map{"status": "ready"})
}
