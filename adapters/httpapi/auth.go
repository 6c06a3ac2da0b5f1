package httpapi

import (
	"context"
	"crypto/subtle"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"tandem/core"
)

// Authenticator resolves a bearer token to its user (accounts.Service).
type Authenticator interface {
	Authenticate(ctx context.Context, token string) (core.Principal, error)
}

const localAuthErr = "authErr"

// authenticate resolves "Authorization: Bearer <token>" when present and puts
// the principal in the request context. It refuses nothing itself: public
// routes ignore the outcome, and the guards below answer 401 with the reason.
func authenticate(a Authenticator) fiber.Handler {
	return func(c *fiber.Ctx) error {
		h := c.Get(fiber.HeaderAuthorization)
		if h == "" {
			return c.Next()
		}
		token, ok := bearerToken(h)
		if !ok {
			c.Locals(localAuthErr, core.Unauthorized("unauthorized", "httpapi.useAuthorizationBearerToken", "use Authorization: Bearer <token>"))
			return c.Next()
		}
		p, err := a.Authenticate(c.UserContext(), token)
		if err != nil {
			c.Locals(localAuthErr, err)
			return c.Next()
		}
		c.SetUserContext(core.WithPrincipal(c.UserContext(), p))
		return c.Next()
	}
}

// bearerToken parses "Bearer <token>" (the scheme is case-insensitive).
func bearerToken(header string) (string, bool) {
	scheme, token, _ := strings.Cut(header, " ")
	token = strings.TrimSpace(token)
	return token, strings.EqualFold(scheme, "Bearer") && token != ""
}

// principal returns the caller or the 401 that explains why there is none.
func principal(c *fiber.Ctx) (core.Principal, error) {
	if p, ok := core.PrincipalFrom(c.UserContext()); ok {
		return p, nil
	}
	if err, ok := c.Locals(localAuthErr).(error); ok {
		return core.Principal{}, err
	}
	return core.Principal{}, core.Unauthorized("unauthorized", "httpapi.authenticationRequiredSendAuthorizationBearer", "authentication required: send Authorization: Bearer <token>")
}

// requireUser admits any authenticated caller.
func requireUser(c *fiber.Ctx) error {
	if _, err := principal(c); err != nil {
		return err
	}
	return c.Next()
}

// requireSelf admits the caller only to their own /{userId} paths.
func requireSelf(c *fiber.Ctx) error {
	if err := callerIs(c, c.Params("userId")); err != nil {
		return err
	}
	return c.Next()
}

// callerIs checks that userID (from the path or, where the path has none,
// the body) is the caller: 401 without a token, 403 for anyone else.
func callerIs(c *fiber.Ctx, userID string) error {
	p, err := principal(c)
	if err != nil {
		return err
	}
	if userID == "" {
		return core.Required("userId")
	}
	if userID != p.UserID {
		return core.Forbidden("forbidden", "httpapi.mayOnlyActOwnAccount", "you may only act on your own account")
	}
	return nil
}

// requireAdmin admits administrators only.
func requireAdmin(c *fiber.Ctx) error {
	p, err := principal(c)
	if err != nil {
		return err
	}
	if !p.Admin {
		return core.Forbidden("forbidden", "admin.administratorsOnly", "administrators only")
	}
	return c.Next()
}

// requireAPIKey checks X-API-Key against the configured service keys in
// constant time. With no keys configured every request is refused. Its
// code is invalid_api_key, not unauthorized: the app's build holds a wrong
// key, and its user's session is fine (an app signs out on unauthorized).
func requireAPIKey(keys []string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		got := []byte(c.Get("X-API-Key"))
		ok := 0
		for _, k := range keys {
			ok |= subtle.ConstantTimeCompare(got, []byte(k))
		}
		if len(got) == 0 || ok != 1 {
			return core.Unauthorized("invalid_api_key", "httpapi.missingInvalidXAPIKey", "missing or invalid X-API-Key")
		}
		return c.Next()
	}
}

// limitPerUser counts requests per authenticated user in the shared store;
// it runs after a guard (requireSelf, requireUser), so a caller is known.
func limitPerUser(l core.Limiter, name string, perMinute int) fiber.Handler {
	rule := core.RateRule{Name: name, Limit: perMinute, Window: time.Minute}
	return func(c *fiber.Ctx) error {
		p, err := principal(c)
		if err != nil {
			return err
		}
		if err := l.Hit(c.UserContext(), rule, p.UserID, "rate_limited"); err != nil && !uncountedRead(c, err) {
			return err
		}
		return c.Next()
	}
}

// uncountedRead lets a read through whose count the full database could
// not store: reads keep working on a full disk; writes fail there anyway.
func uncountedRead(c *fiber.Ctx, err error) bool {
	return core.IsKind(err, core.KindInsufficientStorage) && (c.Method() == fiber.MethodGet || c.Method() == fiber.MethodHead)
}

// signedInAt is when the caller's token was made by a sign-in (zero
// without a caller): the step-up rules read it.
func signedInAt(c *fiber.Ctx) time.Time {
	p, _ := core.PrincipalFrom(c.UserContext())
	return p.SignedInAt
}
