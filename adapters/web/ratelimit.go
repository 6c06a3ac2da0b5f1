package web

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"tandem/core"
)

// LimitPerIP counts requests per client IP in the shared store (the
// console's sign-in shares the auth routes' counter). A request is counted
// once per rule name, however many of its handlers carry the limiter: the
// passkey routes carry auth_ip themselves, and the /api/auth group's
// limiter runs before them or not, by the order the route group was
// registered in (fx value groups have none).
func LimitPerIP(l core.Limiter, name string, perMinute int) fiber.Handler {
	rule := core.RateRule{Name: name, Limit: perMinute, Window: time.Minute}
	counted := "limited:" + name
	return func(c *fiber.Ctx) error {
		if c.Locals(counted) != nil {
			return c.Next()
		}
		c.Locals(counted, true)
		if err := l.Hit(c.UserContext(), rule, ClientIP(c), "rate_limited"); err != nil {
			return err
		}
		return c.Next()
	}
}
