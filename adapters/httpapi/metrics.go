package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/fx"
	"go.uber.org/zap"

	"tandem/adapters/web"
)

// Metrics are the Prometheus series of one server. Each app has its own
// registry, so several apps in one process (tests) do not collide.
type Metrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	traffic  *web.Traffic
}

func NewMetrics() *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		traffic:  web.NewTraffic(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tandem_http_requests_total", Help: "HTTP requests by method, route pattern and status.",
		}, []string{"method", "route", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "tandem_http_request_duration_seconds", Help: "HTTP request latency by method and route pattern.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"method", "route"}),
	}
	m.registry.MustRegister(m.requests, m.duration,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// MustRegister adds series of other parts of the app (the bus, the streams)
// to this app's registry.
func (m *Metrics) MustRegister(cs ...prometheus.Collector) { m.registry.MustRegister(cs...) }

// Register adds one collector, or says why not (already registered...).
func (m *Metrics) Register(c prometheus.Collector) error { return m.registry.Register(c) }

// observe records one finished request under its route pattern (never the
// raw path, whose ids would explode the series count).
func (m *Metrics) observe(c *fiber.Ctx, status int, d time.Duration) {
	route := routePattern(c)
	m.requests.WithLabelValues(c.Method(), route, strconv.Itoa(status)).Inc()
	h := m.duration.WithLabelValues(c.Method(), route)
	// A sampled request's trace id rides along as the bucket's exemplar
	// (shown to scrapers that ask for OpenMetrics), so a slow bucket on a
	// dashboard opens the trace of one of its requests.
	if sc := trace.SpanContextFromContext(c.UserContext()); sc.IsSampled() {
		h.(prometheus.ExemplarObserver).ObserveWithExemplar(d.Seconds(), prometheus.Labels{"trace_id": sc.TraceID().String()})
	} else {
		h.Observe(d.Seconds())
	}
	m.traffic.Record(c.Method(), route, status, d)
}

// Traffic is the in-process record of the last minutes (the console's
// Traffic page).
func (m *Metrics) Traffic() *web.Traffic { return m.traffic }

// MetricsServer serves GET /metrics on its own listener (TANDEM_METRICS_ADDR,
// loopback by default), never on the public one: the series describe the
// routes, the load and the process.
type MetricsServer struct {
	addr string
	srv  *http.Server
	ln   net.Listener
	log  *zap.Logger
}

// NewMetricsServer ties the listener to the fx lifecycle; an empty address
// turns it off.
func NewMetricsServer(lc fx.Lifecycle, cfg Config, log *zap.Logger, m *Metrics) *MetricsServer {
	s := &MetricsServer{addr: cfg.MetricsAddr, log: log}
	if s.addr == "" {
		return s
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{EnableOpenMetrics: true}))
	// The profiler beside the metrics, on the same internal listener: CPU
	// and allocation profiles of the live process (BENCHMARKS.md).
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second}
	lc.Append(fx.Hook{OnStart: s.start, OnStop: s.srv.Shutdown})
	return s
}

func (s *MetricsServer) start(context.Context) error {
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		return fmt.Errorf("TANDEM_METRICS_ADDR: %w", err)
	}
	s.ln = ln
	go func() {
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("metrics server stopped", zap.Error(err))
		}
	}()
	s.log.Info("metrics listening", zap.String("addr", ln.Addr().String()))
	return nil
}

// Addr is the address actually listened on, "" when off (useful with port 0).
func (s *MetricsServer) Addr() string {
	if s.ln == nil {
		return ""
	}
	return s.ln.Addr().String()
}
