package httpapi

import (
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"tandem/core"
	"tandem/modules/relationship"
)

var _ = documentRulesOf("relationship", relationship.Rules)

type relationshipHandler struct {
	svc  *relationship.Service
	idem *Idempotency
}

func NewRelationshipHandler(svc *relationship.Service, idem *Idempotency) *relationshipHandler {
	return &relationshipHandler{svc: svc, idem: idem}
}

// Register uses the spec's singular /api/user/ path.
func (h *relationshipHandler) Register(r fiber.Router) {
	r.Get("/api/user/:userId/relationship", requireSelf, h.get)
	r.Post("/api/user/:userId/relationship", requireSelf, h.idem.Guard, h.post)
	r.Get("/api/user/:userId/relationship/milestones", requireSelf, h.milestones)
}

// durationJSON is the spec's duration object. Field names are the app's
// contract: do not rename.
type durationJSON struct {
	Days      int     `json:"days"`
	StartDate string  `json:"startDate"` // ISO 8601 date-time, midnight UTC of the date
	EndDate   *string `json:"endDate"`   // null while active
	IsActive  bool    `json:"isActive"`
}

// durationReply is the POST body: success and the duration as it now stands.
type durationReply struct {
	Success bool `json:"success"`
	durationJSON
}

func toDurationJSON(d relationship.Duration) durationJSON {
	out := durationJSON{Days: d.Days, StartDate: d.StartDate.Time().Format(time.RFC3339), IsActive: d.Active}
	if !d.Active {
		end := d.EndDate.Time().Format(time.RFC3339)
		out.EndDate = &end
	}
	return out
}

// relationshipExportJSON is one relationship in the account export: its
// dates as days, and the other member.
type relationshipExportJSON struct {
	StartDate string  `json:"startDate"`
	EndDate   *string `json:"endDate"` // null while active
	IsActive  bool    `json:"isActive"`
	PartnerID string  `json:"partnerId"`
}

// toRelationshipsExportJSON renders the account export's relationship section (export.go).
var _ = exportSection(toRelationshipsExportJSON)

func toRelationshipsExportJSON(rs []relationship.ExportedRelationship) []relationshipExportJSON {
	out := make([]relationshipExportJSON, len(rs))
	for i, r := range rs {
		out[i] = relationshipExportJSON{StartDate: r.StartDate.String(), IsActive: r.Active, PartnerID: r.PartnerID}
		if !r.Active {
			end := r.EndDate.String()
			out[i].EndDate = &end
		}
	}
	return out
}

func (h *relationshipHandler) get(c *fiber.Ctx) error {
	d, err := h.svc.Get(c.UserContext(), c.Params("userId"))
	if err != nil {
		return err
	}
	return c.JSON(toDurationJSON(d))
}

func (h *relationshipHandler) post(c *fiber.Ctx) error {
	var in struct {
		Action string `json:"action"`
		Date   string `json:"date"`
	}
	if err := BindJSON(c, &in); err != nil {
		return err
	}
	if err := checkAction(in.Action, "start", "end"); err != nil {
		return err
	}
	ctx, userID := c.UserContext(), c.Params("userId")
	var d relationship.Duration
	var err error
	if in.Action == "start" {
		d, err = h.svc.Start(ctx, userID, in.Date)
	} else {
		d, err = h.svc.End(ctx, userID, in.Date)
	}
	if err != nil {
		return err
	}
	return c.JSON(durationReply{Success: true, durationJSON: toDurationJSON(d)})
}

// milestoneJSON is one milestone. Field names are the app's contract: do
// not rename.
type milestoneJSON struct {
	Date  string `json:"date"` // YYYY-MM-DD
	Days  int    `json:"days"`
	Label string `json:"label"`
	Kind  string `json:"kind"` // days or anniversary
}

type milestonesReply struct {
	Success    bool            `json:"success"`
	Milestones []milestoneJSON `json:"milestones"`
}

func toMilestonesJSON(c *fiber.Ctx, ms []relationship.Milestone) []milestoneJSON {
	out := make([]milestoneJSON, len(ms))
	for i, m := range ms {
		out[i] = milestoneJSON{Date: m.Date.String(), Days: m.Days, Label: milestoneLabel(c, m), Kind: string(m.Kind)}
	}
	return out
}

// milestones answers ?limit= (default relationship.DefaultMilestones); the
// service checks its range, so a number out of it and a word get one message.
func (h *relationshipHandler) milestones(c *fiber.Ctx) error {
	limit := relationship.DefaultMilestones
	if s := c.Query("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			n = 0 // out of range: the service's message
		}
		limit = n
	}
	ms, err := h.svc.Milestones(c.UserContext(), c.Params("userId"), limit)
	if err != nil {
		return err
	}
	return c.JSON(milestonesReply{Success: true, Milestones: toMilestonesJSON(c, ms)})
}

// milestoneLabel is m's label ("100 days", "1 year") in the caller's
// language.
func milestoneLabel(c *fiber.Ctx, m relationship.Milestone) string {
	if m.Kind == relationship.MilestoneAnniversary {
		return sayText(c, core.Msg("milestone.label.years", m.Years))
	}
	return sayText(c, core.Msg("milestone.label.days", m.Days))
}
