package bootstrap

import (
	"net/http"
	"time"

	"go.uber.org/fx"

	"tandem/adapters/signin"
	"tandem/adapters/telemetry"
	"tandem/core"
	"tandem/modules/accounts"
)

// idTokens binds the ID token verifier of the TANDEM_SIGNIN providers;
// with none, accounts answers every sign-in 401 invalid_token.
func idTokens(ps []signin.Provider) fx.Option {
	if len(ps) == 0 {
		return fx.Options()
	}
	return fx.Provide(func(clock core.Clock, t *telemetry.Tracing) accounts.IDTokenVerifier {
		return signin.NewVerifier(ps, t.Client(&http.Client{Timeout: 10 * time.Second}, "jwks"), clock.Now)
	})
}
