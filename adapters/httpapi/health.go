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

// Breaker says the database has stopped answering (sqlstore.Breaker): then
// every /api/ request is refused at once with 503 instead of waiting out
// the request timeout. Guard ties a request to it: the context it returns
// is cancelled, with a core.KindUnavailable cause, when the breaker opens.
type Breaker interface {
	Open() bool
	Guard(ctx context.Context) (context.Context, func())
}

// failFast refuses API requests while the breaker is open, and answers
// those in flight when it opens 503 at once: they were waiting on the same
// silent database.
func failFast(b Breaker) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if !isAPI(c.Path()) {
			return c.Next()
		}
		if b.Open() {
			return databaseDown(c, nil)
		}
		ctx, release := b.Guard(c.UserContext())
		defer release()
		c.SetUserContext(ctx)
		return cutByBreaker(c, c.Next())
	}
}

// breakerRetryAfter is the wait a 503 of the breaker suggests: about its
// probe's interval.
const breakerRetryAfter = "2"

// cutByBreaker is err as the breaker's 503 when the request's context was
// cancelled by the breaker opening, whatever the interrupted query made of
// the cancellation (500, 499): a client retries a 503, never a 500.
func cutByBreaker(c *fiber.Ctx, err error) error {
	ctx := c.UserContext()
	if err != nil && ctx.Err() != nil && core.IsKind(context.Cause(ctx), core.KindUnavailable) {
		return databaseDown(c, err)
	}
	return err
}

// databaseDown is the 503 of a database that stopped answering, with a
// Retry-After.
func databaseDown(c *fiber.Ctx, cause error) error {
	c.Set(fiber.HeaderRetryAfter, breakerRetryAfter)
	e := core.Unavailable("unavailable", "httpapi.databaseUnavailable", "the database is unavailable")
	if cause != nil {
		return e.Wrap(cause)
	}
	return e
}

type healthHandler struct {
	db      Pinger
	drain   *Drain
	breaker Breaker
	streams *Streams
}

func NewHealthHandler(db Pinger, drain *Drain, breaker Breaker, streams *Streams) *healthHandler {
	return &healthHandler{db: db, drain: drain, breaker: breaker, streams: streams}
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
		return core.Unavailable("unavailable", "httpapi.serverStopping", "the server is stopping")
	}
	if h.breaker.Open() {
		return core.Unavailable("unavailable", "httpapi.databaseUnavailable", "the database is unavailable")
	}
	if err := h.db.Ping(c.UserContext()); err != nil {
		return err
	}
	if w, ok := h.db.(WriteHealth); ok {
		if err := w.WriteProblem(); err != nil {
			e := core.As(err)
			return c.JSON(fiber.Map{"status": "degraded", "code": e.Code, "message": e.Message})
		}
	}
	if full, max := h.streams.Full(); full { // degraded, not out: every other route still answers
		return c.JSON(fiber.Map{"status": "degraded", "code": "too_many_streams",
			"message": say(c, "httpapi.processHoldsAllLiveStreams", "this process holds all the live streams it may (%d); new ones are refused", max)})
	}
	return c.JSON(fiber.Map{"status": "ready"})
}

// WriteHealth is a database that can have lost its write path while reads
// work (sqlstore.DB: a write refused for want of space in the last 30 s,
// and none has succeeded since). Readiness then answers 200 "degraded",
// not 503: taking the process out of rotation would fail the reads too,
// and every process shares the one full disk; writes answer 507 meanwhile.
type WriteHealth interface{ WriteProblem() error }
