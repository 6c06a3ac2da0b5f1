package httpapi

import (
	"encoding/base64"
	"encoding/json"

	"github.com/gofiber/fiber/v2"

	"tandem/adapters/web"
	"tandem/core"
	"tandem/modules/passkeys"
)

type passkeysHandler struct {
	svc     *passkeys.Service
	limiter core.Limiter
	cfg     Config
}

func NewPasskeysHandler(svc *passkeys.Service, limiter core.Limiter, cfg Config) *passkeysHandler {
	return &passkeysHandler{svc: svc, limiter: limiter, cfg: cfg}
}

// Register puts the ceremonies under the auth routes' per-IP budget
// (TANDEM_RATE_LIMIT_IP a minute, counter auth_ip, counted once whichever
// limiter runs first): each options call stores a challenge. A failed
// sign-in also counts under the module's passkey_fail_ip rule.
func (h *passkeysHandler) Register(r fiber.Router) {
	perIP := web.LimitPerIP(h.limiter, "auth_ip", h.cfg.RateLimitIP)
	r.Post("/api/auth/passkeys/register/options", perIP, requireUser, h.registerOptions)
	r.Post("/api/auth/passkeys/register/verify", perIP, requireUser, h.registerVerify)
	r.Post("/api/auth/passkeys/signin/options", perIP, h.signInOptions)
	r.Post("/api/auth/passkeys/signin/verify", perIP, h.signIn)
	r.Get("/api/users/user/:userId/passkeys", requireSelf, h.list)
	r.Delete("/api/users/user/:userId/passkeys/:passkeyId", requireSelf, h.remove)
}

// passkeyJSON is one passkey as its owner sees it; never its key.
type passkeyJSON struct {
	ID           string `json:"id"`
	CredentialID string `json:"credentialId"` // base64url, as navigator.credentials shows it
	CreatedAt    int64  `json:"createdAt"`
	LastUsedAt   *int64 `json:"lastUsedAt"`
}

func toPasskeyJSON(p passkeys.Passkey) passkeyJSON {
	out := passkeyJSON{ID: p.ID, CredentialID: base64.RawURLEncoding.EncodeToString(p.CredentialID),
		CreatedAt: core.Millis(p.CreatedAt)}
	if !p.LastUsedAt.IsZero() {
		ms := core.Millis(p.LastUsedAt)
		out.LastUsedAt = &ms
	}
	return out
}

// toPasskeysJSON renders the account export's passkeys section (export.go).
var _ = exportSection(toPasskeysJSON)

func toPasskeysJSON(ps []passkeys.Passkey) []passkeyJSON {
	out := make([]passkeyJSON, len(ps))
	for i, p := range ps {
		out[i] = toPasskeyJSON(p)
	}
	return out
}

// optionsReply carries a ceremony's options as the library wrote them
// ({publicKey: {...}}), for PublicKeyCredential.parse*OptionsFromJSON.
type optionsReply struct {
	Success bool            `json:"success"`
	Options json.RawMessage `json:"options"`
}

// answer reads a verify body: the PublicKeyCredential as its toJSON()
// writes it, checked as any JSON body first. A type sent is the one value
// WebAuthn has: any other is a malformed request (400), not a credential
// that failed (a sign-in's 401, as for an answer that is none at all).
func answer(c *fiber.Ctx) ([]byte, error) {
	var raw map[string]json.RawMessage
	if err := BindJSON(c, &raw); err != nil {
		return nil, err
	}
	var typ string
	if t, sent := raw["type"]; sent && (json.Unmarshal(t, &typ) != nil || typ != "public-key") {
		return nil, core.Invalid("invalid_request", "httpapi.passkeyType", `field type must be "public-key"`)
	}
	return c.Request().Body(), nil
}

func (h *passkeysHandler) registerOptions(c *fiber.Ctx) error {
	p, _ := principal(c)
	o, err := h.svc.RegisterOptions(c.UserContext(), p.UserID, p.SignedInAt)
	if err != nil {
		return err
	}
	return c.JSON(optionsReply{Success: true, Options: o})
}

func (h *passkeysHandler) registerVerify(c *fiber.Ctx) error {
	p, _ := principal(c)
	body, err := answer(c)
	if err != nil {
		return err
	}
	k, err := h.svc.Register(c.UserContext(), p.UserID, p.SignedInAt, body)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"success": true, "passkey": toPasskeyJSON(k), "message": say(c, "httpapi.passkeyRegistered", "passkey registered")})
}

func (h *passkeysHandler) signInOptions(c *fiber.Ctx) error {
	o, err := h.svc.SignInOptions(c.UserContext())
	if err != nil {
		return err
	}
	return c.JSON(optionsReply{Success: true, Options: o})
}

// signIn answers as a login does, with the code signin_success.
func (h *passkeysHandler) signIn(c *fiber.Ctx) error {
	body, err := answer(c)
	if err != nil {
		return err
	}
	cl := clientOf(c)
	userID, token, err := h.svc.SignIn(c.UserContext(), body, passkeys.Client{IP: cl.IP, UserAgent: cl.UserAgent})
	if err != nil {
		return err
	}
	return c.JSON(authReply{Success: true, Code: "signin_success", UserID: userID, Token: token, Message: say(c, "httpapi.signed", "signed in")})
}

func (h *passkeysHandler) list(c *fiber.Ctx) error {
	ps, err := h.svc.List(c.UserContext(), c.Params("userId"))
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"success": true, "passkeys": toPasskeysJSON(ps)})
}

func (h *passkeysHandler) remove(c *fiber.Ctx) error {
	id := c.Params("passkeyId")
	if err := h.svc.Delete(c.UserContext(), c.Params("userId"), id); err != nil {
		return err
	}
	return c.JSON(fiber.Map{"success": true, "deletedId": id})
}
