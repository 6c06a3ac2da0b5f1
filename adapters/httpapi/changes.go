package httpapi

import (
	"encoding/json"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"tandem/core"
	"tandem/modules/accounts"
	"tandem/modules/changes"
	"tandem/modules/images"
	"tandem/modules/partners"
	"tandem/modules/premium"
	"tandem/modules/questions"
)

// RenderChange renders a change's record as the JSON of its REST read
// (renderLive's mappers): the stores record each put with it, in the
// transaction of its write (core.WriteWithChanges).
func RenderChange(rec any) ([]byte, error) {
	v, ok := renderChangeOnly(rec)
	if !ok {
		var err error
		if v, err = renderLive(rec); err != nil {
			return nil, err
		}
	}
	return json.Marshal(v)
}

// renderChangeOnly renders the records of the kinds the feed carries and
// the live stream does not (renderLive renders the others).
func renderChangeOnly(rec any) (any, bool) {
	switch r := rec.(type) {
	case accounts.ProfileRead: // GET /api/users/user/{userId}
		return profileReply{Success: true, accountJSON: toAccountJSON(r.Account, r.Methods)}, true
	case partners.Partner: // the partnership: the partnerId of GET .../pairing
		return partnershipJSON{PartnerID: r.PartnerID}, true
	case questions.View: // GET .../daily-question (with success; the live events' record has none)
		return dailyQuestionReply{Success: true, dailyQuestionToday: toDailyQuestionToday(r)}, true
	case images.Image: // GET .../images/{imageId}
		return toImageJSON(r), true
	case premium.Status: // GET .../premiums?action=subscription
		return subscriptionReply{Success: true, IsPremium: r.IsPremium, Subscription: toSubscriptionJSON(r)}, true
	}
	return nil, false
}

// partnershipJSON is a partnership as one member reads it: the other
// member. Field names are the app's contract: do not rename.
type partnershipJSON struct {
	PartnerID string `json:"partnerId"`
}

type changesHandler struct{ svc *changes.Service }

func NewChangesHandler(svc *changes.Service) *changesHandler { return &changesHandler{svc: svc} }

func (h *changesHandler) Register(r fiber.Router) {
	r.Get("/api/users/user/:userId/changes", requireSelf, h.since)
}

// changeJSON is one change of the feed. Field names are the app's
// contract: do not rename.
type changeJSON struct {
	Kind string          `json:"kind"`
	ID   string          `json:"id"`
	Op   string          `json:"op"`
	Data json.RawMessage `json:"data,omitempty"` // a put's: the REST read's JSON
}

type changesReply struct {
	Success bool         `json:"success"`
	Changes []changeJSON `json:"changes"`
	Cursor  string       `json:"cursor"`
	HasMore bool         `json:"hasMore"`
}

func toChangeJSON(c core.Change) changeJSON {
	out := changeJSON{Kind: c.Kind, ID: c.ID, Op: string(c.Op)}
	if c.Op == core.ChangePut {
		out.Data = c.Data
	}
	return out
}

// since serves GET /api/users/user/{userId}/changes?since=&limit=.
func (h *changesHandler) since(c *fiber.Ctx) error {
	limit := 0
	if s := c.Query("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > changes.MaxLimit {
			return core.BadLimit(changes.MaxLimit)
		}
		limit = n
	}
	f, err := h.svc.Since(c.UserContext(), c.Params("userId"), c.Query("since"), limit)
	if err != nil {
		return err
	}
	out := changesReply{Success: true, Changes: make([]changeJSON, len(f.Changes)), Cursor: f.Cursor, HasMore: f.HasMore}
	for i, ch := range f.Changes {
		out.Changes[i] = toChangeJSON(ch)
	}
	return c.JSON(out)
}
