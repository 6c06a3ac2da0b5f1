package httpapi

import (
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics are the Prometheus series of one server. Each app has its own
// registry, so several apps in one process (tests) do not collide.
type Metrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

func NewMetrics() *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
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

// observe records one finished request under its route pattern (never the
// raw path, whose ids would explode the series count).
func (m *Metrics) observe(c *fiber.Ctx, status int, d time.Duration) {
	route := "unmatched"
	if r := c.Route(); r != nil && r.Path != "/" && r.Path != "" {
		route = r.Path
	}
	m.requests.WithLabelValues(c.Method(), route, strconv.Itoa(status)).Inc()
	m.duration.WithLabelValues(c.Method(), route).Observe(d.Seconds())
}

func (m *Metrics) Register(r fiber.Router) {
	r.Get("/metrics", adaptor.HTTPHandler(promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})))
}
