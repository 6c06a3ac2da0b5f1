package bootstrap

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/fx"
	"go.uber.org/zap"

	"tandem/adapters/bus/localbus"
	"tandem/adapters/bus/natsbus"
	"tandem/adapters/httpapi"
	"tandem/adapters/telemetry"
	"tandem/core"
	"tandem/modules/accounts"
)

// broadcast binds core.Broadcast for TANDEM_BUS, behind reportingBus.
func broadcast(cfg BusConfig) fx.Option {
	return fx.Provide(func(lc fx.Lifecycle, log *zap.Logger, m *httpapi.Metrics, t *telemetry.Tracing, clock core.Clock) (core.Broadcast, error) {
		var b core.Broadcast
		switch cfg.Kind {
		case "local":
			b = traceBus(localbus.New(), t, "local")
		case "nats":
			secret := []byte(cfg.Secret)
			if len(secret) == 0 { // development only (Load)
				secret = make([]byte, 32)
				if _, err := rand.Read(secret); err != nil {
					return nil, fmt.Errorf("TANDEM_BUS_SECRET: %w", err)
				}
				lc.Append(fx.StartHook(func() { log.Warn(busSecretWarning, zap.String("variable", "TANDEM_BUS_SECRET")) }))
			}
			rejected := prometheus.NewCounterVec(prometheus.CounterOpts{
				Name: "tandem_bus_rejected_total",
				Help: "Bus messages dropped unheard, by topic and reason: signature (missing or wrong, TANDEM_BUS_SECRET, " +
					"or an older version's), stale (sent over a minute ago or ahead of this clock), replayed (heard already).",
			}, []string{"topic", "reason"})
			lag := prometheus.NewHistogramVec(prometheus.HistogramOpts{
				Name: "tandem_bus_lag_seconds", Help: "From publish on one process to receipt on this one (two clocks), by topic.",
				Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
			}, []string{"topic"})
			m.MustRegister(rejected, lag)
			nb, err := natsbus.Connect(natsbus.Config{URL: cfg.URL, Prefix: cfg.Prefix, Secret: secret, Clock: clock,
				Rejected: func(topic, reason string) { rejected.WithLabelValues(topic, reason).Inc() },
				Received: func(topic string, d time.Duration) { lag.WithLabelValues(topic).Observe(d.Seconds()) }}, log)
			if err != nil {
				return nil, fmt.Errorf("TANDEM_BUS: %w", err)
			}
			m.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
				Name: "tandem_bus_dropped_total",
				Help: "Bus messages this process's subscriptions dropped for falling behind (NATS slow consumer).",
			}, func() float64 { return float64(nb.Dropped()) }))
			m.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
				Name: "tandem_bus_remembered_ids",
				Help: fmt.Sprintf("Bus message ids this process's subscriptions remember against replays (at most %d each).", natsbus.DefaultSeenCap),
			}, func() float64 { return float64(nb.Remembered()) }))
			lc.Append(fx.StopHook(nb.Close))
			b = traceBus(nb, t, "nats")
		default:
			return nil, fmt.Errorf("TANDEM_BUS: unknown kind %q", cfg.Kind)
		}
		errs := prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tandem_bus_publish_errors_total", Help: "Messages the cross-process bus could not take, by topic.",
		}, []string{"topic"})
		m.MustRegister(errs)
		return &reportingBus{Broadcast: b, log: log, errs: errs}, nil
	})
}

// busSecretWarning is logged at each start on NATS without TANDEM_BUS_SECRET
// (development): the process signs with a secret of its own.
const busSecretWarning = "bus: TANDEM_BUS_SECRET is unset: this process signs with a random secret of its own, " +
	"so it drops every other process's messages and they drop its (no live events or revocations across processes); " +
	"give every process one shared secret"

// reportingBus logs and counts what could not be published: a bus outage
// never fails the request that published.
type reportingBus struct {
	core.Broadcast
	log  *zap.Logger
	errs *prometheus.CounterVec
}

func (r *reportingBus) Publish(ctx context.Context, topic string, data []byte) error {
	err := r.Broadcast.Publish(ctx, topic, data)
	if err != nil {
		r.errs.WithLabelValues(topic).Inc()
		r.log.Warn("bus: publish failed; other processes miss this message", zap.String("topic", topic), zap.Error(err))
	}
	return err
}

// revocationFlush bounds how long a revoking request waits for the bus to
// have the revocation, so the other processes evict before the client hears
// the logout went through.
const revocationFlush = 500 * time.Millisecond

// sharedRevocations is the session cache every process shares forgetting
// through: Forget evicts here and tells every process (TopicRevoke), whose
// subscription evicts there. Accounts calls Forget after the revoking write
// committed, so no process can read the token back in meanwhile.
type sharedRevocations struct {
	accounts.SessionCache
	bus     core.Broadcast
	log     *zap.Logger
	revoked func(hashes []string) // this process's own eviction
}

type revocation struct {
	Tokens []string `json:"tokens"` // SHA-256 hashes, never tokens
}

func (s sharedRevocations) Forget(hashes ...string) {
	if len(hashes) == 0 {
		return
	}
	s.revoked(hashes) // at once here, even with the bus down
	b, err := json.Marshal(revocation{Tokens: hashes})
	if err == nil && s.bus.Publish(context.Background(), core.TopicRevoke, b) == nil {
		if err := s.bus.Flush(revocationFlush); err != nil {
			s.log.Warn("bus: revocation not confirmed", zap.Error(err))
		}
	}
}

// decodeRevocation reads a TopicRevoke message; a malformed one is nil.
func decodeRevocation(data []byte) []string {
	var r revocation
	if json.Unmarshal(data, &r) != nil {
		return nil
	}
	return r.Tokens
}

// sessionCache wraps the local cache so revocations cross processes: every
// process, this one included, evicts the tokens from its cache and ends
// the live streams opened with them.
func sessionCache(lc fx.Lifecycle, local localSessions, streams *httpapi.Streams, bus core.Broadcast,
	log *zap.Logger) (accounts.SessionCache, error) {
	revoked := func(hashes []string) {
		local.Forget(hashes...)
		streams.EndSessions(hashes...)
	}
	stop, err := bus.Subscribe(core.TopicRevoke, func(_ context.Context, data []byte) { revoked(decodeRevocation(data)) })
	if err != nil {
		return nil, err
	}
	lc.Append(fx.StopHook(stop))
	streams.ForgetWith(local.Forget) // a revocation the bus lost, found by a stream's recheck
	return sharedRevocations{SessionCache: local, bus: bus, log: log, revoked: revoked}, nil
}

// localSessions is this process's own cache, before sharedRevocations.
type localSessions struct{ accounts.SessionCache }
