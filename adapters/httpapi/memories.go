package httpapi

import (
	"github.com/gofiber/fiber/v2"

	"tandem/core"
	"tandem/modules/memories"
)

var _ = documentRulesOf("memories", memories.Rules)

type memoriesHandler struct {
	svc  *memories.Service
	idem *Idempotency
}

func NewMemoriesHandler(svc *memories.Service, idem *Idempotency) *memoriesHandler {
	return &memoriesHandler{svc: svc, idem: idem}
}

func (h *memoriesHandler) Register(r fiber.Router) {
	g := r.Group("/api/users/user/:userId/memories", requireSelf)
	g.Post("/", h.idem.Guard, h.create)
	g.Get("/", h.list)
	g.Get("/count", h.count) // static paths before "/:memoryId", or Fiber routes them as ids
	g.Get("/date-range", h.dateRange)
	g.Get("/:memoryId", h.get)
	g.Put("/:memoryId", h.update)
	g.Delete("/:memoryId", h.remove)
}

// memoryJSON is the spec's memory record, plus createdAt and updatedAt
// (milliseconds). Field names are the app's contract: do not rename.
type memoryJSON struct {
	ID          string   `json:"id"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Date        string   `json:"date"`
	Images      []string `json:"images"`
	CreatedAt   int64    `json:"createdAt"`
	UpdatedAt   int64    `json:"updatedAt"`
}

func toMemoryJSON(m memories.Memory) memoryJSON {
	images := m.Images
	if images == nil {
		images = []string{}
	}
	return memoryJSON{ID: m.ID, Title: m.Title, Description: m.Description, Date: m.Date.String(), Images: images,
		CreatedAt: core.Millis(m.CreatedAt), UpdatedAt: core.Millis(m.UpdatedAt)}
}

// toMemoriesJSON renders the account export's memories section (export.go).
var _ = exportSection(toMemoriesJSON)

func toMemoriesJSON(ms []memories.Memory) []memoryJSON {
	out := make([]memoryJSON, 0, len(ms))
	for _, m := range ms {
		out = append(out, toMemoryJSON(m))
	}
	return out
}

// memoryRequest is the body of POST (with action) and PUT. Absent and null
// fields are nil.
type memoryRequest struct {
	Action      *string   `json:"action"`
	Title       *string   `json:"title"`
	Description *string   `json:"description"`
	Date        *string   `json:"date"`
	Images      *[]string `json:"images"`
}

func (in memoryRequest) draft() memories.Draft {
	d := memories.Draft{Title: str(in.Title), Description: str(in.Description), Date: str(in.Date)}
	if in.Images != nil {
		d.Images = *in.Images
	}
	return d
}

// memoryDeletedReply is the DELETE answer. Field names are the app's contract.
type memoryDeletedReply struct {
	Message   string `json:"message"`
	DeletedID string `json:"deletedId"`
}

// memoryCountReply is the count answer. Field names are the app's contract.
type memoryCountReply struct {
	Count int    `json:"count"`
	Date  string `json:"date"`
}

func (h *memoriesHandler) create(c *fiber.Ctx) error {
	var in memoryRequest
	if err := BindJSON(c, &in); err != nil {
		return err
	}
	if err := checkAction(str(in.Action), "create"); err != nil {
		return err
	}
	m, err := h.svc.Create(c.UserContext(), c.Params("userId"), in.draft())
	if err != nil {
		return err
	}
	return c.JSON(toMemoryJSON(m))
}

func (h *memoriesHandler) list(c *fiber.Ctx) error {
	page, err := parsePage(c)
	if err != nil {
		return err
	}
	ms, next, err := h.svc.List(c.UserContext(), c.Params("userId"), page)
	if err != nil {
		return err
	}
	setNextCursor(c, next)
	return c.JSON(toMemoriesJSON(ms))
}

func (h *memoriesHandler) get(c *fiber.Ctx) error {
	m, err := h.svc.Get(c.UserContext(), c.Params("userId"), c.Params("memoryId"))
	if err != nil {
		return err
	}
	return c.JSON(toMemoryJSON(m))
}

func (h *memoriesHandler) update(c *fiber.Ctx) error {
	var in memoryRequest
	if err := BindJSON(c, &in); err != nil {
		return err
	}
	m, err := h.svc.Update(c.UserContext(), c.Params("userId"), c.Params("memoryId"),
		memories.Patch{Title: in.Title, Description: in.Description, Date: in.Date, Images: in.Images})
	if err != nil {
		return err
	}
	return c.JSON(toMemoryJSON(m))
}

func (h *memoriesHandler) remove(c *fiber.Ctx) error {
	id := c.Params("memoryId")
	if err := h.svc.Delete(c.UserContext(), c.Params("userId"), id); err != nil {
		return err
	}
	return c.JSON(memoryDeletedReply{Message: say(c, "httpapi.memoryDeleted", "memory deleted"), DeletedID: id})
}

func (h *memoriesHandler) count(c *fiber.Ctx) error {
	date, err := memories.ParseDay("date", c.Query("date"))
	if err != nil {
		return err
	}
	n, err := h.svc.Count(c.UserContext(), c.Params("userId"), date)
	if err != nil {
		return err
	}
	return c.JSON(memoryCountReply{Count: n, Date: date.String()})
}

func (h *memoriesHandler) dateRange(c *fiber.Ctx) error {
	from, err := memories.ParseDay("startDate", c.Query("startDate"))
	if err != nil {
		return err
	}
	to, err := memories.ParseDay("endDate", c.Query("endDate"))
	if err != nil {
		return err
	}
	page, err := parsePage(c)
	if err != nil {
		return err
	}
	ms, next, err := h.svc.DateRange(c.UserContext(), c.Params("userId"), from, to, page)
	if err != nil {
		return err
	}
	setNextCursor(c, next)
	return c.JSON(toMemoriesJSON(ms))
}
