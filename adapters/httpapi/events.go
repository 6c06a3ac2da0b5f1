package httpapi

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"tandem/core"
	"tandem/modules/events"
)

var _ = documentRulesOf("events", events.Rules)

type eventsHandler struct {
	svc  *events.Service
	idem *Idempotency
}

func NewEventsHandler(svc *events.Service, idem *Idempotency) *eventsHandler {
	return &eventsHandler{svc: svc, idem: idem}
}

func (h *eventsHandler) Register(r fiber.Router) {
	g := r.Group("/api/users/user/:userId/events", requireSelf)
	g.Post("/", h.idem.Guard, h.create)
	g.Get("/", h.list)
	g.Get("/date-range", h.dateRange) // before "/:eventId", or Fiber routes it as an id
	g.Get("/:eventId", h.get)
	g.Put("/:eventId", h.update)
	g.Delete("/:eventId", h.remove)
}

// eventJSON is the spec's calendar event record, plus createdAt and
// updatedAt (milliseconds). Field names are the app's contract: do not rename.
type eventJSON struct {
	ID              string   `json:"id"`
	UserID          string   `json:"userId"`
	Title           string   `json:"title"`
	Description     string   `json:"description"`
	StartDate       string   `json:"startDate"`
	EndDate         string   `json:"endDate"`
	StartTime       string   `json:"startTime"` // "" when the event has no time of day
	EndTime         string   `json:"endTime"`
	Location        string   `json:"location"`
	EventType       string   `json:"eventType"`
	ImportanceLevel string   `json:"importanceLevel"`
	Notify          string   `json:"notify"` // minutes before the start; "" for no reminder
	Participants    []string `json:"participants"`
	CreatedAt       int64    `json:"createdAt"`
	UpdatedAt       int64    `json:"updatedAt"`
}

// eventReadJSON is the single read: the record plus isPartnerEvent.
type eventReadJSON struct {
	eventJSON
	IsPartnerEvent bool `json:"isPartnerEvent"`
}

func toEventJSON(e events.Event) eventJSON {
	participants := e.Participants
	if participants == nil {
		participants = []string{}
	}
	return eventJSON{ID: e.ID, UserID: e.UserID, Title: e.Title, Description: e.Description,
		StartDate: e.StartDate.String(), EndDate: e.EndDate.String(), StartTime: e.StartTime.String(),
		EndTime: e.EndTime.String(), Location: e.Location, EventType: string(e.Type),
		ImportanceLevel: string(e.Importance), Notify: e.Notify.String(), Participants: participants,
		CreatedAt: core.Millis(e.CreatedAt), UpdatedAt: core.Millis(e.UpdatedAt)}
}

// toEventReadJSON is the single read as one reader sees it.
func toEventReadJSON(r events.Read) eventReadJSON {
	return eventReadJSON{eventJSON: toEventJSON(r.Event), IsPartnerEvent: r.Partner}
}

// toEventsJSON renders the account export's events section (export.go).
var _ = exportSection(toEventsJSON)

func toEventsJSON(es []events.Event) []eventJSON {
	out := make([]eventJSON, 0, len(es))
	for _, e := range es {
		out = append(out, toEventJSON(e))
	}
	return out
}

// The date-range reply. Field names are the app's contract: do not rename.
type dateRangeReply struct {
	DateRange struct {
		Requested      requestedRangeJSON `json:"requested"`
		ActualCoverage coverageJSON       `json:"actualCoverage"`
	} `json:"dateRange"`
	Summary struct {
		TotalEvents      int `json:"totalEvents"`
		ExactMatches     int `json:"exactMatches"`
		DateCoverageDays int `json:"dateCoverageDays"`
	} `json:"summary"`
	Events struct {
		ExactMatches rangeCategoryJSON `json:"exactMatches"`
		OtherRecents rangeCategoryJSON `json:"otherRecents"`
	} `json:"events"`
}

type requestedRangeJSON struct {
	StartDate string `json:"startDate"`
	EndDate   string `json:"endDate"`
}

// coverageJSON holds ISO 8601 date-times (midnight UTC of the dates); both
// are null when nothing was found.
type coverageJSON struct {
	Start *string `json:"start"`
	End   *string `json:"end"`
}

type rangeCategoryJSON struct {
	Message string          `json:"message"`
	Data    []rangeItemJSON `json:"data"`
}

type rangeItemJSON struct {
	ID             string `json:"id"`
	StartDate      string `json:"startDate"`
	EndDate        string `json:"endDate"`
	Title          string `json:"title"`
	EventType      string `json:"eventType"`
	IsPartnerEvent bool   `json:"isPartnerEvent"`
}

func toDateRangeReply(c *fiber.Ctx, rep events.RangeReport) dateRangeReply {
	var out dateRangeReply
	out.DateRange.Requested = requestedRangeJSON{StartDate: rep.From.String(), EndDate: rep.To.String()}
	if start, end, ok := rep.Coverage(); ok {
		s, e := start.Time().Format(time.RFC3339), end.Time().Format(time.RFC3339)
		out.DateRange.ActualCoverage = coverageJSON{Start: &s, End: &e}
	}
	out.Summary.TotalEvents, out.Summary.ExactMatches, out.Summary.DateCoverageDays = rep.Total(), len(rep.Exact), rep.CoverageDays()
	out.Events.ExactMatches = rangeCategoryJSON{Message: rangeMessage(c, len(rep.Exact), true, rep),
		Data: toRangeItems(rep.Exact)}
	out.Events.OtherRecents = rangeCategoryJSON{Message: rangeMessage(c, len(rep.Other), false, rep),
		Data: toRangeItems(rep.Other)}
	return out
}

// rangeMessage describes one category, the events exactly in the range or
// the others overlapping it: "2 events overlapping 2025-03-01 to 2025-03-03".
// Each sentence is whole (a constant format), so that it translates.
func rangeMessage(c *fiber.Ctx, n int, exact bool, rep events.RangeReport) string {
	from, to := rep.From.String(), rep.To.String() // as the dateRange fields write them
	switch {
	case exact && n == 0:
		return say(c, "httpapi.noEventsExactly", "no events exactly from %s to %s", from, to)
	case exact:
		return say(c, "httpapi.eventsExactly", "{1|%[1]d event|%[1]d events} exactly from %s to %s", n, from, to)
	case n == 0:
		return say(c, "httpapi.noEventsOverlapping", "no events overlapping %s to %s", from, to)
	}
	return say(c, "httpapi.eventsOverlapping", "{1|%[1]d event|%[1]d events} overlapping %s to %s", n, from, to)
}

func toRangeItems(fs []events.Found) []rangeItemJSON {
	out := make([]rangeItemJSON, 0, len(fs))
	for _, f := range fs {
		out = append(out, rangeItemJSON{ID: f.ID, StartDate: f.StartDate.String(), EndDate: f.EndDate.String(),
			Title: f.Title, EventType: string(f.Type), IsPartnerEvent: f.Partner})
	}
	return out
}

// eventRequest is the body of POST (with action) and PUT. Absent and null
// fields are nil. notify stays raw: a JSON integer is taken as well as a string.
type eventRequest struct {
	Action          *string         `json:"action"`
	Title           *string         `json:"title"`
	Description     *string         `json:"description"`
	StartDate       *string         `json:"startDate"`
	EndDate         *string         `json:"endDate"`
	StartTime       *string         `json:"startTime"`
	EndTime         *string         `json:"endTime"`
	Location        *string         `json:"location"`
	EventType       *string         `json:"eventType"`
	ImportanceLevel *string         `json:"importanceLevel"`
	Notify          json.RawMessage `json:"notify"`
	Participants    *[]string       `json:"participants"`
}

func (in eventRequest) patch() (events.Patch, error) {
	notify, err := notifyField(in.Notify)
	if err != nil {
		return events.Patch{}, err
	}
	return events.Patch{Title: in.Title, Description: in.Description, StartDate: in.StartDate, EndDate: in.EndDate,
		StartTime: in.StartTime, EndTime: in.EndTime, Location: in.Location, EventType: in.EventType,
		ImportanceLevel: in.ImportanceLevel, Notify: notify, Participants: in.Participants}, nil
}

func (in eventRequest) draft() (events.Draft, error) {
	notify, err := notifyField(in.Notify)
	if err != nil {
		return events.Draft{}, err
	}
	d := events.Draft{Title: str(in.Title), Description: str(in.Description),
		StartDate: str(in.StartDate), EndDate: str(in.EndDate), StartTime: str(in.StartTime), EndTime: str(in.EndTime),
		Location: str(in.Location), EventType: in.EventType, ImportanceLevel: in.ImportanceLevel,
		Notify: str(notify)}
	if in.Participants != nil {
		d.Participants = *in.Participants
	}
	return d, nil
}

// notifyField reads notify as a string, or as a whole JSON number of
// minutes (returned as its digits); absent and null give nil.
func notifyField(raw json.RawMessage) (*string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var s string
	if raw[0] == '"' {
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, core.Invalid("invalid_request", "httpapi.fieldNotifyString", "field notify must be a string")
		}
		return &s, nil
	}
	n, err := strconv.ParseUint(string(raw), 10, 32)
	if err != nil {
		return nil, core.Invalid("invalid_request", "httpapi.fieldNotifyStringMinutesWhole", "field notify must be a string of minutes (or a whole number)")
	}
	s = strconv.FormatUint(n, 10)
	return &s, nil
}

func (h *eventsHandler) create(c *fiber.Ctx) error {
	var in eventRequest
	if err := BindJSON(c, &in); err != nil {
		return err
	}
	if err := checkAction(str(in.Action), "create"); err != nil {
		return err
	}
	d, err := in.draft()
	if err != nil {
		return err
	}
	e, err := h.svc.Create(c.UserContext(), c.Params("userId"), d)
	if err != nil {
		return err
	}
	return c.JSON(toEventJSON(e))
}

func (h *eventsHandler) list(c *fiber.Ctx) error {
	page, err := parsePage(c)
	if err != nil {
		return err
	}
	evs, next, err := h.svc.List(c.UserContext(), c.Params("userId"), page)
	if err != nil {
		return err
	}
	setNextCursor(c, next)
	return sendEventsJSON(c, toEventsJSON(evs))
}

func (h *eventsHandler) get(c *fiber.Ctx) error {
	e, partner, err := h.svc.Get(c.UserContext(), c.Params("userId"), c.Params("eventId"))
	if err != nil {
		return err
	}
	return c.JSON(toEventReadJSON(events.Read{Event: e, Partner: partner}))
}

func (h *eventsHandler) update(c *fiber.Ctx) error {
	var in eventRequest
	if err := BindJSON(c, &in); err != nil {
		return err
	}
	p, err := in.patch()
	if err != nil {
		return err
	}
	e, err := h.svc.Update(c.UserContext(), c.Params("userId"), c.Params("eventId"), p)
	if err != nil {
		return err
	}
	return c.JSON(toEventJSON(e))
}

func (h *eventsHandler) remove(c *fiber.Ctx) error {
	if err := h.svc.Delete(c.UserContext(), c.Params("userId"), c.Params("eventId")); err != nil {
		return err
	}
	return c.JSON(fiber.Map{"success": true})
}

func (h *eventsHandler) dateRange(c *fiber.Ctx) error {
	from, to, err := events.ParseRange(c.Query("startDate"), c.Query("endDate")) // 400 on missing/invalid
	if err != nil {
		return err
	}
	rep, err := h.svc.DateRange(c.UserContext(), c.Params("userId"), from, to)
	if err != nil {
		return err
	}
	return c.JSON(toDateRangeReply(c, rep))
}
