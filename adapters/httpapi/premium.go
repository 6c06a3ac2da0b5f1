package httpapi

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"tandem/core"
	"tandem/modules/premium"
)

var _ = documentRulesOf("premium", premium.Rules)

type premiumHandler struct {
	svc  *premium.Service
	idem *Idempotency
}

func NewPremiumHandler(svc *premium.Service, idem *Idempotency) *premiumHandler {
	return &premiumHandler{svc: svc, idem: idem}
}

func (h *premiumHandler) Register(r fiber.Router) {
	r.Get("/api/users/user/:userId/premiums", requireSelf, h.get)
	r.Post("/api/users/user/:userId/premiums", requireSelf, h.idem.Guard, h.post)
	// Stores call these; each request is verified by what it carries (a
	// signature chain to the store's root, or the push secret or token).
	r.Post("/api/webhooks/app-store", h.webhook(premium.StoreAppStore))
	r.Post("/api/webhooks/google-play", h.webhook(premium.StorePlay))
}

// Response bodies. Field names are the app's contract: do not rename.
type premiumStatusReply struct {
	IsPremium bool    `json:"isPremium"`
	Source    string  `json:"source"`
	PartnerID *string `json:"partnerId"`
	Message   string  `json:"message"`
}

type subscriptionJSON struct {
	Plan               string          `json:"plan"`
	StartDate          int64           `json:"startDate"`
	EndDate            int64           `json:"endDate"`
	IsActive           bool            `json:"isActive"`
	IsPartnerInherited bool            `json:"isPartnerInherited"`
	BillingID          string          `json:"billingId"`
	Platform           string          `json:"platform"`
	LastRenewed        int64           `json:"lastRenewed"`
	Cancelled          bool            `json:"cancelled"`
	Meta               json.RawMessage `json:"meta"`
	// Additions: the store that vouches for it (null under trust) and its
	// state there.
	Store *string `json:"store"`
	State string  `json:"state"`
}

type subscriptionReply struct {
	Success      bool              `json:"success"`
	IsPremium    bool              `json:"isPremium"`
	Subscription *subscriptionJSON `json:"subscription"`
}

type limitsReply struct {
	IsPremium bool           `json:"isPremium"`
	Limits    premium.Limits `json:"limits"`
}

type checkReply struct {
	HasAccess bool   `json:"hasAccess"`
	Message   string `json:"message,omitempty"`
}

func (h *premiumHandler) get(c *fiber.Ctx) error {
	ctx, userID := c.UserContext(), c.Params("userId")
	switch action := c.Query("action"); action {
	case "status":
		st, err := h.svc.Status(ctx, userID)
		if err != nil {
			return err
		}
		return c.JSON(toStatusReply(c, st))
	case "subscription", "details":
		st, err := h.svc.Status(ctx, userID)
		if err != nil {
			return err
		}
		return c.JSON(subscriptionReply{Success: true, IsPremium: st.IsPremium, Subscription: toSubscriptionJSON(st)})
	case "limits":
		isPremium, limits, err := h.svc.Limits(ctx, userID)
		if err != nil {
			return err
		}
		return c.JSON(limitsReply{IsPremium: isPremium, Limits: limits})
	case "check":
		a, err := h.svc.Check(ctx, userID, c.Query("feature"))
		if err != nil {
			return err
		}
		if !a.Known {
			return c.JSON(checkReply{Message: say(c, "httpapi.unknownFeature", "unknown feature")})
		}
		return c.JSON(checkReply{HasAccess: a.HasAccess})
	default:
		return checkAction(action, "status", "subscription", "details", "limits", "check")
	}
}

func toStatusReply(c *fiber.Ctx, st premium.Status) premiumStatusReply {
	r := premiumStatusReply{IsPremium: st.IsPremium, Source: string(st.Source), Message: statusMessage(c, st.Source)}
	if st.PartnerID != "" {
		r.PartnerID = &st.PartnerID
	}
	return r
}

// statusMessage is the human-readable summary of a premium status.
func statusMessage(c *fiber.Ctx, src premium.Source) string {
	switch src {
	case premium.SourceDirect:
		return say(c, "httpapi.premiumThroughOwnSubscription", "premium through your own subscription")
	case premium.SourcePartner:
		return say(c, "httpapi.premiumSharedPartner", "premium shared by your partner")
	}
	return say(c, "httpapi.noActivePremium", "no active premium")
}

func toSubscriptionJSON(st premium.Status) *subscriptionJSON {
	s := st.Subscription
	if s == nil {
		return nil
	}
	return &subscriptionJSON{Plan: s.Plan, StartDate: core.Millis(s.StartDate), EndDate: core.Millis(s.EndDate),
		IsActive: st.InForce, IsPartnerInherited: st.Inherited, BillingID: s.BillingID, Platform: string(s.Platform),
		LastRenewed: core.Millis(s.LastRenewed), Cancelled: s.Cancelled, Meta: s.Meta, Store: storeName(s.Store),
		State: string(s.State)}
}

func storeName(s premium.Store) *string {
	if s == premium.StoreNone {
		return nil
	}
	name := string(s)
	return &name
}

// subscriptionExportJSON is the user's own stored subscription in the
// account export: its own isActive flag, not the status's, and createdAt.
type subscriptionExportJSON struct {
	Plan        string          `json:"plan"`
	StartDate   int64           `json:"startDate"`
	EndDate     int64           `json:"endDate"`
	IsActive    bool            `json:"isActive"`
	Cancelled   bool            `json:"cancelled"`
	BillingID   string          `json:"billingId"`
	Platform    string          `json:"platform"`
	LastRenewed int64           `json:"lastRenewed"`
	Meta        json.RawMessage `json:"meta"`
	CreatedAt   int64           `json:"createdAt"`
	Store       *string         `json:"store"`
	StoreRef    string          `json:"storeRef"`
	ProductID   string          `json:"productId"`
	State       string          `json:"state"`
}

// toSubscriptionExportJSON renders the account export's premium section (export.go).
var _ = exportSection(toSubscriptionExportJSON)

// toSubscriptionExportJSON is nil (null) when the user has no subscription.
func toSubscriptionExportJSON(s *premium.Subscription) *subscriptionExportJSON {
	if s == nil {
		return nil
	}
	return &subscriptionExportJSON{Plan: s.Plan, StartDate: core.Millis(s.StartDate), EndDate: core.Millis(s.EndDate),
		IsActive: s.IsActive, Cancelled: s.Cancelled, BillingID: s.BillingID, Platform: string(s.Platform),
		LastRenewed: core.Millis(s.LastRenewed), Meta: s.Meta, CreatedAt: core.Millis(s.CreatedAt),
		Store: storeName(s.Store), StoreRef: s.StoreRef, ProductID: s.ProductID, State: string(s.State)}
}

// premiumRequest is every POST body, told apart by action. The dates stay raw
// so that only JSON integers are taken as milliseconds.
type premiumRequest struct {
	Action    *string         `json:"action"`
	Plan      *string         `json:"plan"`
	StartDate json.RawMessage `json:"startDate"`
	EndDate   json.RawMessage `json:"endDate"`
	BillingID *string         `json:"billingId"`
	Platform  *string         `json:"platform"`
	Meta      json.RawMessage `json:"meta"`
	// The store's proof (additions): StoreKit 2's signedTransactionInfo, or
	// Google Play's purchaseToken with its productId.
	SignedTransactionInfo *string `json:"signedTransactionInfo"`
	PurchaseToken         *string `json:"purchaseToken"`
	ProductID             *string `json:"productId"`
}

func (in premiumRequest) proof() premium.Proof {
	return premium.Proof{SignedTransaction: str(in.SignedTransactionInfo), PurchaseToken: str(in.PurchaseToken),
		ProductID: str(in.ProductID)}
}

func (h *premiumHandler) post(c *fiber.Ctx) error {
	var in premiumRequest
	if err := BindJSON(c, &in); err != nil {
		return err
	}
	start, err := millisField("startDate", in.StartDate)
	if err != nil {
		return err
	}
	end, err := millisField("endDate", in.EndDate)
	if err != nil {
		return err
	}
	ctx, userID := c.UserContext(), c.Params("userId")
	switch action := str(in.Action); action {
	case "create", "subscribe":
		d := premium.Draft{Plan: str(in.Plan), BillingID: str(in.BillingID), Platform: str(in.Platform), Meta: in.Meta,
			Proof: in.proof()}
		if start != nil {
			d.StartDate = *start
		}
		if end != nil {
			d.EndDate = *end
		}
		if err := h.svc.Subscribe(ctx, userID, d); err != nil {
			return err
		}
		return c.JSON(fiber.Map{"success": true, "created": true})
	case "update":
		p := premium.Patch{Plan: in.Plan, StartDate: start, EndDate: end, BillingID: in.BillingID, Platform: in.Platform,
			Meta: in.Meta, Proof: in.proof()}
		if err := h.svc.Update(ctx, userID, p); err != nil {
			return err
		}
		return c.JSON(fiber.Map{"success": true, "updated": true})
	case "cancel", "deactivate":
		if err := h.svc.Cancel(ctx, userID); err != nil {
			return err
		}
		return c.JSON(fiber.Map{"success": true, "deactivated": true})
	default:
		return checkAction(action, "create", "subscribe", "update", "cancel", "deactivate")
	}
}

// webhook takes a store's server notification. Anything but a verified one
// is refused with the error body; a duplicate or one about a purchase no
// account holds is 200, so the store stops resending it; 503 makes it retry.
func (h *premiumHandler) webhook(store premium.Store) fiber.Handler {
	return func(c *fiber.Ctx) error {
		n := premium.Notification{Store: store, Body: c.Body(), Secret: c.Query("token"),
			Authorization: c.Get(fiber.HeaderAuthorization)}
		ev, err := h.svc.Notify(c.UserContext(), n)
		if err != nil {
			return err
		}
		return c.JSON(fiber.Map{"success": true, "type": ev.Type})
	}
}

// millisField parses a JSON integer of milliseconds since the epoch; absent
// and null give nil. Strings, fractions and negative numbers are refused.
func millisField(name string, raw json.RawMessage) (*time.Time, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil || n < 0 || n > core.MaxMillis {
		return nil, core.Invalid("invalid_request", "httpapi.wholeNumberMillisecondsSinceEpoch", "%s must be a whole number of milliseconds since the epoch", name)
	}
	t := core.FromMillis(n)
	return &t, nil
}
