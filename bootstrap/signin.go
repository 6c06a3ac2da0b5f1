package bootstrap

import (
	"context"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/fx"
	"go.uber.org/zap"

	"tandem/adapters/httpapi"
	"tandem/adapters/sealing"
	"tandem/adapters/signin"
	"tandem/adapters/telemetry"
	"tandem/core"
	"tandem/modules/accounts"
)

// idTokens binds the ID token verifier of the TANDEM_SIGNIN providers;
// with none, accounts answers every sign-in 401 invalid_token. With
// Apple's team key it binds Apple's code exchange and revocation and the
// Sealer of their grants (TANDEM_ENCRYPTION_KEY, which Load requires then).
// The RevocationLog is bound always: a queue left by an earlier
// configuration waits, and says so.
func idTokens(ps []signin.Provider, keys [][]byte) fx.Option {
	opts := []fx.Option{fx.Provide(newRevocationLog)}
	if len(ps) == 0 {
		return fx.Options(opts...)
	}
	opts = append(opts, fx.Provide(func(clock core.Clock, t *telemetry.Tracing) accounts.IDTokenVerifier {
		return signin.NewVerifier(ps, t.Client(&http.Client{Timeout: 10 * time.Second}, "jwks"), clock.Now)
	}))
	for _, p := range ps {
		if p.Team == nil {
			continue
		}
		team := *p.Team
		sealer, err := sealing.New(keys...)
		if err != nil {
			return fx.Error(err)
		}
		opts = append(opts,
			fx.Supply(fx.Annotate(sealer, fx.As(new(accounts.Sealer)))),
			fx.Provide(func(clock core.Clock, t *telemetry.Tracing) accounts.ProviderGrants {
				return signin.NewApple(team, t.Client(&http.Client{Timeout: 15 * time.Second}, "apple"), clock.Now)
			}))
	}
	return fx.Options(opts...)
}

// revocationLog logs what became of queued grant revocations, by
// revocation id, provider and user: never the grant.
type revocationLog struct {
	log     *zap.Logger
	outcome *prometheus.CounterVec
}

// newRevocationLog counts the outcomes, and reads the queue's depth at each
// scrape: a depth that only grows is a grant Apple does not take.
func newRevocationLog(log *zap.Logger, m *httpapi.Metrics, q accounts.Revocations) accounts.RevocationLog {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "tandem_grant_revocations_total",
		Help: "Revocations of sign-in providers' grants (Apple's refresh tokens) by outcome: revoked, failed (retried) and dropped (the provider no longer knew the grant).",
	}, []string{"result"})
	depth := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "tandem_grant_revocations_pending",
		Help: "Grants of removed sign-in identities waiting for their revocation.",
	}, func() float64 {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		n, err := q.PendingRevocations(ctx)
		if err != nil {
			return -1
		}
		return float64(n)
	})
	m.MustRegister(c, depth)
	return revocationLog{log: log, outcome: c}
}

func revocationFields(r accounts.Revocation) []zap.Field {
	return []zap.Field{zap.String("revocation_id", r.ID), zap.String("provider", r.Provider), zap.String("user_id", r.UserID),
		zap.Int("attempts", r.Attempts)}
}

func (l revocationLog) Revoked(_ context.Context, r accounts.Revocation) {
	l.outcome.WithLabelValues("revoked").Inc()
	l.log.Info("grant revoked", revocationFields(r)...)
}

func (l revocationLog) RevokeFailed(_ context.Context, r accounts.Revocation, err error, next time.Time) {
	l.outcome.WithLabelValues("failed").Inc()
	l.log.Warn("grant revocation failed; retried later", append(revocationFields(r), zap.Error(err), zap.Time("next_attempt_at", next))...)
}

func (l revocationLog) RevokeDropped(_ context.Context, r accounts.Revocation, reason string) {
	l.outcome.WithLabelValues("dropped").Inc()
	l.log.Info("grant revocation dropped", append(revocationFields(r), zap.String("reason", reason))...)
}
