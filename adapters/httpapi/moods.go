package httpapi

import (
	"github.com/gofiber/fiber/v2"

	"tandem/core"
	"tandem/modules/moods"
)

var _ = documentRulesOf("moods", moods.Rules)

type moodsHandler struct {
	svc  *moods.Service
	idem *Idempotency
}

func NewMoodsHandler(svc *moods.Service, idem *Idempotency) *moodsHandler {
	return &moodsHandler{svc: svc, idem: idem}
}

func (h *moodsHandler) Register(r fiber.Router) {
	r.Post("/api/users/user/:userId/moods", requireSelf, h.idem.Guard, h.checkIn)
	r.Get("/api/users/user/:userId/moods", requireSelf, h.list)
}

// moodJSON is one mood check-in: date is the owner's local day, createdAt
// and updatedAt milliseconds. Field names are the app's contract: do not
// rename.
type moodJSON struct {
	ID        string `json:"id"`
	UserID    string `json:"userId"`
	Mood      string `json:"mood"`
	Note      string `json:"note"`
	Date      string `json:"date"`
	CreatedAt int64  `json:"createdAt"`
	UpdatedAt int64  `json:"updatedAt"`
}

func toMoodJSON(m moods.Mood) moodJSON {
	return moodJSON{ID: m.ID, UserID: m.UserID, Mood: string(m.Level), Note: m.Note, Date: m.Date.String(),
		CreatedAt: core.Millis(m.CreatedAt), UpdatedAt: core.Millis(m.UpdatedAt)}
}

// toMoodsJSON renders the account export's moods section (export.go).
var _ = exportSection(toMoodsJSON)

func toMoodsJSON(ms []moods.Mood) []moodJSON {
	out := make([]moodJSON, 0, len(ms))
	for _, m := range ms {
		out = append(out, toMoodJSON(m))
	}
	return out
}

type moodReply struct {
	Success bool     `json:"success"`
	Mood    moodJSON `json:"mood"`
}

// moodListReply carries the range it covers (from and to, the defaults
// resolved) beside the moods.
type moodListReply struct {
	Success bool       `json:"success"`
	From    string     `json:"from"`
	To      string     `json:"to"`
	Moods   []moodJSON `json:"moods"`
}

// moodRequest is the POST body; absent and null fields are nil.
type moodRequest struct {
	Mood *string `json:"mood"`
	Note *string `json:"note"`
}

func (h *moodsHandler) checkIn(c *fiber.Ctx) error {
	var in moodRequest
	if err := BindJSON(c, &in); err != nil {
		return err
	}
	m, err := h.svc.CheckIn(c.UserContext(), c.Params("userId"), moods.Draft{Mood: str(in.Mood), Note: str(in.Note)})
	if err != nil {
		return err
	}
	return c.JSON(moodReply{Success: true, Mood: toMoodJSON(m)})
}

func (h *moodsHandler) list(c *fiber.Ctx) error {
	l, err := h.svc.List(c.UserContext(), c.Params("userId"), moods.Query{From: c.Query("from"), To: c.Query("to")})
	if err != nil {
		return err
	}
	return c.JSON(moodListReply{Success: true, From: l.Span.From.String(), To: l.Span.To.String(), Moods: toMoodsJSON(l.Moods)})
}
