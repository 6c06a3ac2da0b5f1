package httpapi

import (
	"context"

	"github.com/gofiber/fiber/v2"

	"tandem/adapters/web"
	"tandem/core"
	"tandem/modules/accounts"
)

var _ = documentRulesOf("accounts", accounts.Rules)

type accountsHandler struct {
	svc     *accounts.Service
	limiter core.Limiter
	cfg     Config
}

func NewAccountsHandler(svc *accounts.Service, limiter core.Limiter, cfg Config) *accountsHandler {
	return &accountsHandler{svc: svc, limiter: limiter, cfg: cfg}
}

func (h *accountsHandler) Register(r fiber.Router) {
	auth := r.Group("/api/auth", web.LimitPerIP(h.limiter, "auth_ip", h.cfg.RateLimitIP))
	auth.Post("/signup/email", h.signup)
	auth.Post("/login/email", h.login)
	auth.Post("/reset", h.reset)
	auth.Post("/signin/apple", h.signInWith(accounts.ProviderApple))
	auth.Post("/signin/google", h.signInWith(accounts.ProviderGoogle))
	auth.Post("/logout", requireUser, h.logout)

	r.Get("/api/users/user/:userId/sessions", requireSelf, h.sessions)
	r.Delete("/api/users/user/:userId/sessions/:sessionId", requireSelf, h.deleteSession)

	r.Get("/api/users/user/:userId", requireSelf, h.profile)
	r.Patch("/api/users/user/:userId", requireSelf, h.patchProfile)
	r.Post("/api/users/user/:userId/password", requireSelf, h.changePassword)
	r.Delete("/api/users/user/:userId", requireSelf, h.deleteAccount)
	r.Get("/api/users/user/:userId/export", requireSelf, h.export)
	r.Delete("/api/users/user/:userId/signin/:provider", requireSelf, h.unlink)
}

// Request bodies: one path serves several steps, told apart by their fields.
type signupRequest struct {
	Email            *string `json:"email"`
	Password         *string `json:"password"`
	UserID           *string `json:"userId"`
	VerificationCode *string `json:"verificationCode"`
}

type resetRequest struct {
	Email       *string `json:"email"`
	UserID      *string `json:"userId"`
	Code        *string `json:"code"`
	ResetToken  *string `json:"resetToken"`
	NewPassword *string `json:"newPassword"`
}

// authReply is every success body of /api/auth. Field names are the app's
// contract: do not rename.
type authReply struct {
	Success bool   `json:"success"`
	Code    string `json:"code,omitempty"`
	UserID  string `json:"userId,omitempty"`
	Token   string `json:"token,omitempty"`
	Valid   *bool  `json:"valid,omitempty"`
	// ResetToken is an addition to the spec: the proof the password update
	// step may carry instead of the code.
	ResetToken string `json:"resetToken,omitempty"`
	// PasswordRequired is an addition: the verified account has no password
	// (its sign-ups disagreed on one); the owner sets one with
	// POST /api/users/user/{userId}/password.
	PasswordRequired bool   `json:"passwordRequired,omitempty"`
	Message          string `json:"message"`
}

// clientOf is who is calling, for login counters and the sessions list.
func clientOf(c *fiber.Ctx) accounts.Client {
	return accounts.Client{IP: web.ClientIP(c), UserAgent: c.Get(fiber.HeaderUserAgent), Locale: requestLocale(c)}
}

func (h *accountsHandler) signup(c *fiber.Ctx) error {
	var in signupRequest
	if err := BindJSON(c, &in); err != nil {
		return err
	}
	ctx := c.UserContext()
	if in.VerificationCode != nil || (in.UserID != nil && in.Email == nil) {
		v, err := h.svc.VerifyEmail(ctx, str(in.UserID), str(in.VerificationCode), clientOf(c))
		if err != nil {
			return err
		}
		reply := authReply{Success: true, Code: "verification_success", UserID: str(in.UserID), Token: v.Token,
			Message: say(c, "httpapi.mailVerified", "e-mail verified")}
		if v.PasswordRequired {
			reply.PasswordRequired, reply.Message = true, "e-mail verified; set a password to log in with it"
		}
		return c.JSON(reply)
	}
	userID, err := h.svc.SignUp(ctx, str(in.Email), str(in.Password), clientOf(c))
	if err != nil {
		return err
	}
	return c.JSON(authReply{Success: true, Code: "verification_required", UserID: userID,
		Message: say(c, "httpapi.verificationCodeWasSentMail", "a verification code was sent to your e-mail")})
}

func (h *accountsHandler) login(c *fiber.Ctx) error {
	var in struct {
		Email    string `json:"email"`
		Password string `json:"password"`
	}
	// An empty body is a login with both fields missing: the spec's answer
	// for that is success false and a message without a code.
	if len(c.Request().Body()) > 0 { // never c.Body(): Fiber would decode it by its Content-Encoding
		if err := BindJSON(c, &in); err != nil {
			return err
		}
	}
	userID, token, err := h.svc.Login(c.UserContext(), in.Email, in.Password, clientOf(c))
	if err != nil {
		return err
	}
	return c.JSON(authReply{Success: true, UserID: userID, Token: token, Message: say(c, "httpapi.logged", "logged in")})
}

func (h *accountsHandler) reset(c *fiber.Ctx) error {
	var in resetRequest
	if err := BindJSON(c, &in); err != nil {
		return err
	}
	ctx := c.UserContext()
	switch {
	case in.NewPassword != nil:
		return h.resetUpdate(c, ctx, in)
	case in.Code != nil:
		proof, err := h.svc.VerifyReset(ctx, str(in.UserID), *in.Code, clientOf(c))
		if err != nil {
			return err
		}
		valid := true
		return c.JSON(authReply{Success: true, Code: "code_valid", Valid: &valid, ResetToken: proof,
			Message: say(c, "httpapi.codeValid", "the code is valid")})
	case in.Email != nil:
		userID, err := h.svc.RequestReset(ctx, *in.Email, clientOf(c))
		if err != nil {
			return err
		}
		return c.JSON(authReply{Success: true, Code: "reset_code_sent", UserID: userID,
			Message: say(c, "httpapi.resetCodeWasSentMail", "a reset code was sent to your e-mail")})
	}
	return core.Invalid("invalid_request", "httpapi.sendEmailUserIdCodeUserId", "send {email}, {userId, code} or {userId, newPassword, code or resetToken}")
}

func (h *accountsHandler) resetUpdate(c *fiber.Ctx, ctx context.Context, in resetRequest) error {
	userID := str(in.UserID)
	proof := accounts.ResetProof{Code: str(in.Code), ResetToken: str(in.ResetToken)}
	token, err := h.svc.UpdatePassword(ctx, userID, *in.NewPassword, proof, clientOf(c))
	if err != nil {
		return err
	}
	return c.JSON(authReply{Success: true, Code: "password_updated", UserID: userID, Token: token,
		Message: say(c, "httpapi.passwordUpdated", "password updated")})
}

func (h *accountsHandler) logout(c *fiber.Ctx) error {
	var in struct {
		All bool `json:"all"`
	}
	if len(c.Request().Body()) > 0 { // never c.Body(): Fiber would decode it by its Content-Encoding
		if err := BindJSON(c, &in); err != nil {
			return err
		}
	}
	p, _ := principal(c)
	token, _ := bearerToken(c.Get(fiber.HeaderAuthorization))
	if err := h.svc.Logout(c.UserContext(), p.UserID, token, in.All); err != nil {
		return err
	}
	if in.All {
		return c.JSON(fiber.Map{"success": true, "message": say(c, "httpapi.loggedOutEverywhere", "logged out everywhere")})
	}
	return c.JSON(fiber.Map{"success": true, "message": say(c, "httpapi.loggedOut", "logged out")})
}

// sessionJSON is one live token as its owner sees it; never the token.
type sessionJSON struct {
	ID         string `json:"id"`
	CreatedAt  int64  `json:"createdAt"`
	LastUsedAt *int64 `json:"lastUsedAt"`
	UserAgent  string `json:"userAgent"`
	Current    bool   `json:"current"`
}

func (h *accountsHandler) sessions(c *fiber.Ctx) error {
	ts, err := h.svc.Sessions(c.UserContext(), c.Params("userId"))
	if err != nil {
		return err
	}
	token, _ := bearerToken(c.Get(fiber.HeaderAuthorization))
	current := accounts.HashToken(token)
	out := make([]sessionJSON, len(ts))
	for i, t := range ts {
		out[i] = sessionJSON{ID: t.ID, CreatedAt: core.Millis(t.CreatedAt), UserAgent: t.UserAgent,
			Current: t.Hash == current}
		if !t.LastUsedAt.IsZero() {
			ms := core.Millis(t.LastUsedAt)
			out[i].LastUsedAt = &ms
		}
	}
	return c.JSON(fiber.Map{"success": true, "sessions": out})
}

func (h *accountsHandler) deleteSession(c *fiber.Ctx) error {
	id := c.Params("sessionId")
	if err := h.svc.DeleteSession(c.UserContext(), c.Params("userId"), id); err != nil {
		return err
	}
	return c.JSON(fiber.Map{"success": true, "deletedId": id})
}

// accountJSON is the profile. Field names are the app's contract.
type accountJSON struct {
	UserID      string `json:"userId"`
	Email       string `json:"email"`
	DisplayName string `json:"displayName"`
	// Nickname (an addition) is left out while the account has none.
	Nickname string `json:"nickname,omitempty"`
	Timezone string `json:"timezone"`
	// Locale (an addition) is the BCP 47 tag the account's mails, pushes
	// and notifications are written for.
	Locale    string `json:"locale"`
	CreatedAt int64  `json:"createdAt"`
	// PasswordRequired (an addition) is true while the account has no
	// password: it was verified after sign-ups that disagreed on one.
	PasswordRequired bool `json:"passwordRequired,omitempty"`
	// SignInMethods (an addition): "password", the linked providers, and
	// "passkey" when the account holds one.
	SignInMethods []string `json:"signInMethods"`
}

// profileReply is the body of GET/PATCH: success and the flat profile.
type profileReply struct {
	Success bool `json:"success"`
	accountJSON
}

func toAccountJSON(a accounts.Account, methods []string) accountJSON {
	return accountJSON{UserID: a.ID, Email: a.Email, DisplayName: a.DisplayName, Nickname: a.Nickname,
		Timezone: a.Timezone, Locale: localeOf(a), CreatedAt: core.Millis(a.CreatedAt), PasswordRequired: a.PasswordHash == "",
		SignInMethods: methods}
}

// localeOf is a's locale, "en" for an account made before there was one.
func localeOf(a accounts.Account) string {
	if a.Locale == "" {
		return "en"
	}
	return a.Locale
}

// profileJSON is the account as the profile shows it, with its methods.
func (h *accountsHandler) profileJSON(c *fiber.Ctx, a accounts.Account) (profileReply, error) {
	methods, err := h.svc.SignInMethods(c.UserContext(), a)
	if err != nil {
		return profileReply{}, err
	}
	return profileReply{Success: true, accountJSON: toAccountJSON(a, methods)}, nil
}

func (h *accountsHandler) profile(c *fiber.Ctx) error {
	a, err := h.svc.Profile(c.UserContext(), c.Params("userId"))
	if err != nil {
		return err
	}
	out, err := h.profileJSON(c, a)
	if err != nil {
		return err
	}
	return c.JSON(out)
}

func (h *accountsHandler) patchProfile(c *fiber.Ctx) error {
	var in struct {
		DisplayName *string `json:"displayName"`
		Nickname    *string `json:"nickname"`
		Timezone    *string `json:"timezone"`
		Locale      *string `json:"locale"`
	}
	if err := BindJSON(c, &in); err != nil {
		return err
	}
	a, err := h.svc.UpdateProfile(c.UserContext(), c.Params("userId"),
		accounts.ProfilePatch{DisplayName: in.DisplayName, Nickname: in.Nickname, Timezone: in.Timezone, Locale: in.Locale})
	if err != nil {
		return err
	}
	out, err := h.profileJSON(c, a)
	if err != nil {
		return err
	}
	return c.JSON(out)
}

// changePassword sets the signed-in user's password: every other session
// ends, and the answer carries the new token.
func (h *accountsHandler) changePassword(c *fiber.Ctx) error {
	var in struct {
		CurrentPassword string  `json:"currentPassword"`
		NewPassword     *string `json:"newPassword"`
	}
	if err := BindJSON(c, &in); err != nil {
		return err
	}
	if in.NewPassword == nil {
		return core.Required("newPassword")
	}
	userID := c.Params("userId")
	token, err := h.svc.ChangePassword(c.UserContext(), userID, signedInAt(c), in.CurrentPassword, *in.NewPassword, clientOf(c))
	if err != nil {
		return err
	}
	return c.JSON(authReply{Success: true, Code: "password_updated", UserID: userID, Token: token,
		Message: say(c, "httpapi.passwordUpdated", "password updated")})
}

func (h *accountsHandler) deleteAccount(c *fiber.Ctx) error {
	if err := h.svc.Delete(c.UserContext(), c.Params("userId")); err != nil {
		return err
	}
	return c.JSON(fiber.Map{"success": true, "message": say(c, "httpapi.accountAllDataDeleted", "account and all its data deleted")})
}

func (h *accountsHandler) export(c *fiber.Ctx) error {
	a, data, err := h.svc.Export(c.UserContext(), c.Params("userId"))
	if err != nil {
		return err
	}
	out, err := toExportJSON(data)
	if err != nil {
		return err
	}
	ids, err := h.svc.Identities(c.UserContext(), a.ID)
	if err != nil {
		return err
	}
	methods, err := h.svc.SignInMethods(c.UserContext(), a)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"success": true, "account": exportAccountJSON{toAccountJSON(a, methods), toIdentitiesJSON(ids)}, "data": out})
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// exportAccountJSON is the account in the export: the profile and the
// linked identities.
type exportAccountJSON struct {
	accountJSON
	Identities []identityJSON `json:"identities"`
}

type identityJSON struct {
	Provider  string `json:"provider"`
	Subject   string `json:"subject"`
	Email     string `json:"email"`
	CreatedAt int64  `json:"createdAt"`
}

func toIdentitiesJSON(ids []accounts.Identity) []identityJSON {
	out := make([]identityJSON, len(ids))
	for i, id := range ids {
		out[i] = identityJSON{Provider: id.Provider, Subject: id.Subject, Email: id.Email, CreatedAt: core.Millis(id.CreatedAt)}
	}
	return out
}
