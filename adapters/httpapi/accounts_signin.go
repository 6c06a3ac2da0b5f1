package httpapi

import (
	"github.com/gofiber/fiber/v2"

	"tandem/core"
	"tandem/modules/accounts"
)

// Sign in with Apple and Google (docs/api.md#sign-in-with-apple-and-google).

type signInRequest struct {
	IDToken    *string `json:"idToken"`
	Nonce      string  `json:"nonce"`
	GivenName  string  `json:"givenName"`  // Apple only
	FamilyName string  `json:"familyName"` // Apple only
	// AuthorizationCode is Apple's code beside the ID token (Apple only):
	// redeemed for the grant that account deletion revokes.
	AuthorizationCode string `json:"authorizationCode"`
}

// signInReply is the answer of a sign-in: Created when the account is new.
type signInReply struct {
	Success bool   `json:"success"`
	Code    string `json:"code"`
	UserID  string `json:"userId"`
	Token   string `json:"token"`
	Created bool   `json:"created"`
	Message string `json:"message"`
}

// maxIDToken bounds the token read (Apple's and Google's are ~1 KB).
const maxIDToken = 8 << 10

func (h *accountsHandler) signInWith(provider string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		var in signInRequest
		if err := BindJSON(c, &in); err != nil {
			return err
		}
		if in.IDToken == nil || *in.IDToken == "" {
			return core.Required("idToken")
		}
		if len(*in.IDToken) > maxIDToken || len(in.Nonce) > 512 {
			return core.Unauthorized("invalid_token", "signin.iDTokenNotValid", "the ID token is not valid")
		}
		r := accounts.SignInRequest{Provider: provider, IDToken: *in.IDToken, Nonce: in.Nonce}
		if provider == accounts.ProviderApple {
			r.GivenName, r.FamilyName, r.AuthorizationCode = in.GivenName, in.FamilyName, in.AuthorizationCode
		}
		userID, token, created, err := h.svc.SignIn(c.UserContext(), r, clientOf(c))
		if err != nil {
			return err
		}
		return c.JSON(signInReply{Success: true, Code: "signin_success", UserID: userID, Token: token,
			Created: created, Message: say(c, "httpapi.signed", "signed in")})
	}
}

func (h *accountsHandler) unlink(c *fiber.Ctx) error {
	provider := c.Params("provider")
	if err := h.svc.Unlink(c.UserContext(), c.Params("userId"), provider); err != nil {
		return err
	}
	return c.JSON(fiber.Map{"success": true, "removed": provider})
}
