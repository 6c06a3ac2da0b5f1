package httpapi

import (
	"github.com/gofiber/fiber/v2"

	"tandem/adapters/web"
	"tandem/core"
	"tandem/modules/partners"
)

var _ = documentRulesOf("partners", partners.Rules)

type partnersHandler struct {
	svc  *partners.Service
	cfg  Config
	idem *Idempotency
}

func NewPartnersHandler(svc *partners.Service, cfg Config, idem *Idempotency) *partnersHandler {
	return &partnersHandler{svc: svc, cfg: cfg, idem: idem}
}

func (h *partnersHandler) Register(r fiber.Router) {
	// The service key alone proves nothing (it ships in the app): the bearer
	// token is required too, before the body is even read.
	pc := r.Group("/api/partnerConnections", requireAPIKey(h.cfg.APIKeys), requireUser)
	pc.Post("/create", h.idem.Guard, h.createConnection)
	pc.Get("/get/:userId", requireSelf, h.getConnection)
	pc.Post("/link", h.link)
	pc.Post("/unlink", h.unlink)

	r.Post("/api/users/user/:userId/pairing/unpair", requireSelf, h.unpair) // static before parametric
	r.Get("/api/users/user/:userId/pairing", requireSelf, h.pairingStatus)
	r.Post("/api/users/user/:userId/pairing", requireSelf, h.idem.Guard, h.pairing)
}

// connectionRequest is the body of create, link and unlink. Field names are
// the app's contract: do not rename.
type connectionRequest struct {
	UserID         string `json:"userId"`
	ConnectionCode string `json:"connectionCode"`
}

// connectionReply wraps every partner-connection answer: {status, data}.
type connectionReply struct {
	Status string `json:"status"`
	Data   any    `json:"data"`
}

// connectionJSON is GET's data; partnerId is null while unlinked,
// connectionCode (and its expiresAt) null for a couple paired by pairing code.
type connectionJSON struct {
	UserID         string  `json:"userId"`
	PartnerID      *string `json:"partnerId"`
	ConnectionCode *string `json:"connectionCode"`
	ExpiresAt      *int64  `json:"expiresAt"`
}

// createdConnectionJSON is create's data: the stored code (the drawn one
// when the request named none) and when it stops linking, in milliseconds.
type createdConnectionJSON struct {
	ConnectionID   string `json:"connectionId"`
	ConnectionCode string `json:"connectionCode"`
	ExpiresAt      int64  `json:"expiresAt"`
}

// partnersExportJSON is the account export's part: the user's codes and
// partner, each null when there is none.
type partnersExportJSON struct {
	ConnectionCode *string `json:"connectionCode"`
	PairingCode    *string `json:"pairingCode"`
	PartnerID      *string `json:"partnerId"`
}

// toPartnersExportJSON renders the account export's partners section (export.go).
var _ = exportSection(toPartnersExportJSON)

func toPartnersExportJSON(e partners.Export) partnersExportJSON { return partnersExportJSON(e) }

func connectionOK(data any) connectionReply { return connectionReply{Status: "success", Data: data} }

// bindConnection reads the body and admits only the caller's own userId.
func bindConnection(c *fiber.Ctx) (connectionRequest, error) {
	var in connectionRequest
	if err := BindJSON(c, &in); err != nil {
		return in, err
	}
	return in, callerIs(c, in.UserID)
}

func (h *partnersHandler) createConnection(c *fiber.Ctx) error {
	in, err := bindConnection(c)
	if err != nil {
		return err
	}
	conn, err := h.svc.CreateConnection(c.UserContext(), in.UserID, in.ConnectionCode, web.ClientIP(c))
	if err != nil {
		return err
	}
	return c.JSON(connectionOK(createdConnectionJSON{ConnectionID: conn.ID, ConnectionCode: conn.Code,
		ExpiresAt: core.Millis(conn.ExpiresAt)}))
}

func (h *partnersHandler) getConnection(c *fiber.Ctx) error {
	v, err := h.svc.Connection(c.UserContext(), c.Params("userId"))
	if err != nil {
		return err
	}
	out := connectionJSON{UserID: v.UserID, PartnerID: orNull(v.PartnerID), ConnectionCode: orNull(v.Code)}
	if v.Code != "" {
		ms := core.Millis(v.ExpiresAt)
		out.ExpiresAt = &ms
	}
	return c.JSON(connectionOK(out))
}

func (h *partnersHandler) link(c *fiber.Ctx) error {
	in, err := bindConnection(c)
	if err != nil {
		return err
	}
	partnerID, err := h.svc.Link(c.UserContext(), in.UserID, in.ConnectionCode, web.ClientIP(c))
	if err != nil {
		return err
	}
	return c.JSON(connectionOK(fiber.Map{"partnerId": partnerID}))
}

func (h *partnersHandler) unlink(c *fiber.Ctx) error {
	in, err := bindConnection(c)
	if err != nil {
		return err
	}
	if err := h.svc.Unlink(c.UserContext(), in.UserID); err != nil {
		return err
	}
	return c.JSON(connectionOK(fiber.Map{"success": true}))
}

// pairingRequest is the body of POST .../pairing.
type pairingRequest struct {
	Action     string  `json:"action"`
	TargetCode *string `json:"targetCode"`
}

// The pairing replies. Field names are the app's contract: do not rename.
type pairingCodeReply struct {
	Code      string `json:"code"`
	ExpiresAt int64  `json:"expiresAt"`
}

type pairingPendingReply struct {
	Status         string `json:"status"`
	Message        string `json:"message"`
	PartnerID      string `json:"partnerId"`
	ActionRequired bool   `json:"actionRequired"`
}

type pairingConnectedReply struct {
	State     string  `json:"state"`
	Message   string  `json:"message"`
	PartnerID string  `json:"partnerId"`
	MyCode    *string `json:"myCode"`
}

type pairingStatusJSON struct {
	State          string  `json:"state"`
	MyCode         *string `json:"myCode"`
	ExpiresAt      *int64  `json:"expiresAt"`
	PartnerID      *string `json:"partnerId"`
	IncomingFrom   *string `json:"incomingFrom"`
	OutgoingTo     *string `json:"outgoingTo"`
	ActionRequired bool    `json:"actionRequired"`
}

func toPairingStatusJSON(s partners.Status) pairingStatusJSON {
	out := pairingStatusJSON{State: string(s.State), PartnerID: orNull(s.PartnerID),
		IncomingFrom: orNull(s.IncomingFrom), OutgoingTo: orNull(s.OutgoingTo), ActionRequired: s.ActionRequired}
	if s.MyCode != nil {
		code, ms := s.MyCode.Code, core.Millis(s.MyCode.ExpiresAt)
		out.MyCode, out.ExpiresAt = &code, &ms
	}
	return out
}

// partnershipEndedJSON is the record of a partnership.ended live event:
// the former partner. Field names are the app's contract: do not rename.
type partnershipEndedJSON struct {
	PartnerID string `json:"partnerId"`
}

func (h *partnersHandler) pairing(c *fiber.Ctx) error {
	var in pairingRequest
	if err := BindJSON(c, &in); err != nil {
		return err
	}
	ctx, userID := c.UserContext(), c.Params("userId")
	switch in.Action {
	case "generate-code":
		code, err := h.svc.GenerateCode(ctx, userID)
		if err != nil {
			return err
		}
		return c.JSON(pairingCodeReply{Code: code.Code, ExpiresAt: core.Millis(code.ExpiresAt)})
	case "submit-code":
		if in.TargetCode == nil {
			return core.Required("targetCode")
		}
		out, err := h.svc.SubmitCode(ctx, userID, *in.TargetCode, web.ClientIP(c))
		if err != nil {
			return err
		}
		if out.Connected {
			return c.JSON(pairingConnectedReply{State: string(partners.StateConnected), Message: say(c, "httpapi.nowConnected", "you are now connected"),
				PartnerID: out.PartnerID, MyCode: orNull(out.MyCode)})
		}
		return c.JSON(pairingPendingReply{Status: string(partners.StatePending),
			Message: say(c, "httpapi.requestSentWaitingPartnerEnter", "request sent; waiting for your partner to enter your code"), PartnerID: out.PartnerID})
	}
	return checkAction(in.Action, "generate-code", "submit-code")
}

func (h *partnersHandler) pairingStatus(c *fiber.Ctx) error {
	s, err := h.svc.Status(c.UserContext(), c.Params("userId"))
	if err != nil {
		return err
	}
	return c.JSON(toPairingStatusJSON(s))
}

func (h *partnersHandler) unpair(c *fiber.Ctx) error {
	if err := h.svc.Unpair(c.UserContext(), c.Params("userId")); err != nil {
		return err
	}
	return c.JSON(fiber.Map{"success": true})
}

// orNull renders "" as JSON null.
func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
