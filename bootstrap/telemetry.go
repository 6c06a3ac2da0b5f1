package bootstrap

import (
	"context"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/fx"
	"go.uber.org/zap"

	"tandem/adapters/httpapi"
	"tandem/adapters/sqlstore"
	"tandem/adapters/telemetry"
	"tandem/core"
	"tandem/modules/accounts"
	"tandem/modules/notifications"
)

// tracing provides the app's *telemetry.Tracing from the OTEL_* variables:
// off (a no-op, nothing installed) unless an OTLP endpoint or
// OTEL_TRACES_EXPORTER=otlp is set. Its batches are flushed at stop.
func tracing(cfg Config) fx.Option {
	return fx.Provide(func(lc fx.Lifecycle, log *zap.Logger) (*telemetry.Tracing, error) {
		t, err := telemetry.Start(context.Background(), cfg.Telemetry, tandemVersion())
		if err != nil || !t.On() {
			return t, err
		}
		endpoint := cfg.Telemetry.Endpoint
		if endpoint == "" {
			endpoint = "the SDK's default (http://localhost:4318/v1/traces)"
		}
		lc.Append(fx.Hook{
			OnStart: func(context.Context) error {
				log.Info("tracing: spans are exported over OTLP/HTTP", zap.String("endpoint", endpoint))
				return nil
			},
			OnStop: t.Shutdown,
		})
		return t, nil
	})
}

// observability adds the series that read other parts of the app: the mail
// outbox's depth and age (read at each scrape, within a second).
var observability = fx.Invoke(func(m *httpapi.Metrics, q accounts.Outbox, clock core.Clock, log *zap.Logger) {
	m.MustRegister(outboxCollector{q: q, clock: clock, log: log})
})

var (
	outboxDepth = prometheus.NewDesc("tandem_mail_outbox_depth",
		"Mails queued and neither sent nor dropped yet.", nil, nil)
	outboxAge = prometheus.NewDesc("tandem_mail_outbox_oldest_age_seconds",
		"Age of the oldest mail neither sent nor dropped yet (0 when the outbox is empty).", nil, nil)
)

// outboxCollector reads the outbox when scraped: the table is small (sent
// mail leaves it), and a count per scrape costs nothing worth caching.
type outboxCollector struct {
	q     accounts.Outbox
	clock core.Clock
	log   *zap.Logger
}

// oldestMail is what the SQL and memory outboxes answer besides the port.
type oldestMail interface {
	OldestMail(ctx context.Context) (time.Time, bool, error)
}

func (c outboxCollector) Describe(ch chan<- *prometheus.Desc) { ch <- outboxDepth; ch <- outboxAge }

func (c outboxCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	n, err := c.q.PendingMail(ctx)
	if err != nil {
		c.log.Warn("metrics: mail outbox not read", zap.Error(err))
		return
	}
	ch <- prometheus.MustNewConstMetric(outboxDepth, prometheus.GaugeValue, float64(n))
	if o, ok := c.q.(oldestMail); ok {
		age := 0.0
		if at, any, err := o.OldestMail(ctx); err == nil && any {
			age = max(c.clock.Now().Sub(at).Seconds(), 0)
		} else if err != nil {
			return
		}
		ch <- prometheus.MustNewConstMetric(outboxAge, prometheus.GaugeValue, age)
	}
}

// sqlPoolSeries exports the SQL pool's statistics (go_sql_*: open, in use,
// idle connections, waits and their duration, closes), labelled
// db_name="mysql" or "sqlite".
func sqlPoolSeries(m *httpapi.Metrics, d *sqlstore.DB) {
	m.MustRegister(collectors.NewDBStatsCollector(d.DB.DB, string(d.Dialect)))
}

// tracedBus makes each publish a producer span and each delivery a
// consumer span. The adapter under it carries the publishing span's
// context (NATS headers; in process, the context itself), so a delivery on
// another process is a child of the request that published.
type tracedBus struct {
	core.Broadcast
	tracer trace.Tracer
	system string // "nats" or "local"
}

func traceBus(b core.Broadcast, t *telemetry.Tracing, system string) core.Broadcast {
	if !t.On() {
		return b
	}
	return tracedBus{Broadcast: b, tracer: t.Tracer("tandem/bus"), system: system}
}

func (b tracedBus) attrs(topic, op string) trace.SpanStartOption {
	return trace.WithAttributes(semconv.MessagingSystemKey.String(b.system), semconv.MessagingDestinationName(topic),
		semconv.MessagingOperationTypeKey.String(op))
}

func (b tracedBus) Publish(ctx context.Context, topic string, data []byte) error {
	ctx, span := b.tracer.Start(ctx, "bus publish "+topic, trace.WithSpanKind(trace.SpanKindProducer), b.attrs(topic, "send"),
		trace.WithAttributes(semconv.MessagingMessageBodySize(len(data))))
	defer span.End()
	err := b.Broadcast.Publish(ctx, topic, data)
	if err != nil {
		telemetry.Fail(span, err)
	}
	return err
}

func (b tracedBus) Subscribe(topic string, handle func(context.Context, []byte)) (func(), error) {
	return b.Broadcast.Subscribe(topic, func(ctx context.Context, data []byte) {
		ctx, span := b.tracer.Start(ctx, "bus receive "+topic, trace.WithSpanKind(trace.SpanKindConsumer), b.attrs(topic, "receive"))
		defer span.End()
		handle(ctx, data)
	})
}

// tracedMailer makes each SMTP delivery a client span: its kind and
// outcome, never the recipient or the text.
type tracedMailer struct {
	accounts.Mailer
	tracer trace.Tracer
}

func traceMailer(m accounts.Mailer, t *telemetry.Tracing) accounts.Mailer {
	if !t.On() {
		return m
	}
	return tracedMailer{Mailer: m, tracer: t.Tracer("tandem/mail")}
}

func (m tracedMailer) Send(ctx context.Context, mail accounts.Mail) error {
	ctx, span := m.tracer.Start(ctx, "smtp send", trace.WithSpanKind(trace.SpanKindClient))
	defer span.End()
	err := m.Mailer.Send(ctx, mail)
	if err != nil {
		telemetry.Fail(span, err) // a relay's error may quote the recipient
	}
	return err
}

// pushObservers are what each push provider is watched with: a span per
// push and the failures by provider.
type pushObservers struct {
	fx.In
	Tracing *telemetry.Tracing
	Metrics *httpapi.Metrics
}

// pushFailures is registered once per app (one registry each).
func (o pushObservers) failures() *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "tandem_push_failures_total",
		Help: "Push deliveries a provider did not accept, by provider and reason (failed, dead_token).",
	}, []string{"provider", "reason"})
	if err := o.Metrics.Register(c); err != nil {
		if are, ok := err.(prometheus.AlreadyRegisteredError); ok {
			return are.ExistingCollector.(*prometheus.CounterVec)
		}
	}
	return c
}

func (o pushObservers) observe(provider string, p notifications.Pusher) notifications.Pusher {
	if o.Metrics == nil { // tests of the router alone
		return p
	}
	op := observedPusher{Pusher: p, provider: provider, failures: o.failures()}
	if o.Tracing.On() {
		op.tracer = o.Tracing.Tracer("tandem/push")
	}
	return op
}

type observedPusher struct {
	notifications.Pusher
	provider string
	failures *prometheus.CounterVec
	tracer   trace.Tracer // nil: not traced
}

func (p observedPusher) Push(ctx context.Context, m notifications.Message, to []notifications.Device) []notifications.Delivery {
	var span trace.Span
	if p.tracer != nil {
		ctx, span = p.tracer.Start(ctx, "push "+p.provider, trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(attribute.String("tandem.push.provider", p.provider), attribute.Int("tandem.push.devices", len(to))))
		defer span.End()
	}
	out := p.Pusher.Push(ctx, m, to)
	failed := 0
	for _, d := range out {
		switch d.Outcome {
		case notifications.OutcomeFailed:
			failed++
			p.failures.WithLabelValues(p.provider, "failed").Inc()
		case notifications.OutcomeDeadToken:
			p.failures.WithLabelValues(p.provider, "dead_token").Inc()
		}
	}
	if span != nil && failed > 0 {
		span.SetAttributes(attribute.Int("tandem.push.failed", failed))
		span.SetStatus(codes.Error, "deliveries failed")
	}
	return out
}

// laterTransport is a transport chosen after its client was built (the
// stores are built before the app, to fail early on a bad setting).
type laterTransport struct {
	rt atomic.Pointer[http.RoundTripper]
}

func (l *laterTransport) set(rt http.RoundTripper) {
	if rt != nil {
		l.rt.Store(&rt)
	}
}

func (l *laterTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if rt := l.rt.Load(); rt != nil {
		return (*rt).RoundTrip(r)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// jobSpan starts the span of one run of a background job: a trace of its
// own, named after the job.
func jobSpan(ctx context.Context, tracer trace.Tracer, name string) (context.Context, trace.Span) {
	if tracer == nil {
		return ctx, nil
	}
	return tracer.Start(ctx, "job "+name, trace.WithNewRoot(), trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(attribute.String("tandem.job", name)))
}
