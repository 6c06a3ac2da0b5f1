// Package httpapi is the HTTP adapter: the Fiber server, its middleware, the
// one error mapper and one thin handler file per module.
package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/cors"
	"go.uber.org/fx"
	"go.uber.org/zap"

	"tandem/adapters/telemetry"
	"tandem/adapters/web"
)

// Config is the HTTP part of the configuration.
type Config struct {
	Addr            string
	PublicURL       string
	MetricsAddr     string // the /metrics listener; "" turns it off
	UploadLimit     int    // bytes per uploaded image
	UploadBodyLimit int    // the whole body of the upload route, streamed
	JSONBodyLimit   int    // every other route, read before the handlers
	ReadTimeout     time.Duration
	WriteTimeout    time.Duration
	IdleTimeout     time.Duration
	RequestTimeout  time.Duration
	// ShutdownGrace is how long a stopping server, no longer accepting,
	// keeps answering the connections already open (each answer with
	// Connection: close, /readyz 503), so that keep-alive clients leave
	// after an answer rather than into a closed socket.
	ShutdownGrace  time.Duration
	TrustedProxies []string
	CORSOrigins    string
	APIKeys        []string // X-API-Key values of the key-guarded routes
	RateLimitIP    int      // requests per minute per IP on the auth routes
	ImageRateLimit int      // requests per minute per user on the image routes
	Stream         StreamConfig
	// WellKnown lists the apps the site vouches for
	// (/.well-known/apple-app-site-association and assetlinks.json).
	WellKnown WellKnown
}

// Server owns the Fiber app and its listener.
type Server struct {
	App     *fiber.App
	cfg     Config
	log     *zap.Logger
	ln      *conns
	served  chan struct{} // closed when Serve has returned
	streams *Streams
	drain   *Drain
}

// Drain says whether the server is stopping: from then on every answer
// closes its connection and /readyz answers 503.
type Drain struct{ on atomic.Bool }

func NewDrain() *Drain { return &Drain{} }

// Draining reports whether the server is stopping.
func (d *Drain) Draining() bool { return d.on.Load() }

// closeWhenDraining makes a stopping server end each keep-alive connection
// with the answer it is giving, so no client sends another request into a
// socket about to close.
func closeWhenDraining(d *Drain) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if d.Draining() {
			c.Context().SetConnectionClose()
		}
		return c.Next()
	}
}

// ServerParams is what the server is built from: one field per
// dependency, and the "headers" and "routes" groups every part of the site
// contributes to (a parameter object, so no list of positional tags).
type ServerParams struct {
	fx.In
	Lifecycle fx.Lifecycle
	Config    Config
	Log       *zap.Logger
	Auth      Authenticator
	Metrics   *Metrics
	Streams   *Streams
	Drain     *Drain
	Breaker   Breaker
	Languages Languages
	Tracing   *telemetry.Tracing
	Headers   []web.Headers `group:"headers"`
	Routes    []web.Route   `group:"routes"`
}

// NewServer builds the app with every route of the group and ties serving
// to the fx lifecycle; stopping drains in-flight requests.
func NewServer(p ServerParams) *Server {
	s := &Server{App: newApp(p.Config, p.Log, p.Auth, p.Metrics, p.Drain, p.Breaker, p.Languages, p.Tracing, p.Headers),
		cfg: p.Config, log: p.Log, streams: p.Streams, drain: p.Drain}
	for _, r := range p.Routes {
		r.Register(s.App)
	}
	p.Lifecycle.Append(fx.Hook{OnStart: s.start, OnStop: s.stop})
	return s
}

func newApp(cfg Config, log *zap.Logger, auth Authenticator, m *Metrics, drain *Drain, breaker Breaker,
	langs Languages, tracing *telemetry.Tracing, headers []web.Headers) *fiber.App {
	fc := fiber.Config{
		AppName:      "tandem",
		Immutable:    true, // values from the context outlive the handler safely
		ErrorHandler: NewErrorHandler(log),
		JSONEncoder:  encodeJSON,
		// Bodies are streamed: this only sizes fasthttp's first read of one
		// (at most 8 KiB); settleBody and limitBody enforce the limits.
		StreamRequestBody:     true,
		BodyLimit:             cfg.JSONBodyLimit,
		ReadTimeout:           cfg.ReadTimeout,
		WriteTimeout:          cfg.WriteTimeout,
		IdleTimeout:           cfg.IdleTimeout,
		DisableStartupMessage: true,
		EnableIPValidation:    true,
	}
	// Multipart bodies are parsed by the upload handler, after the token and
	// the rate limit, with the API's own error text, never before routing.
	fc.DisablePreParseMultipartForm = true
	// No proxy header for Fiber: its c.IP() believes the leftmost
	// X-Forwarded-For entry, which the client writes (web.ClientKey reads it
	// from the right). Fiber trusts no proxy's X-Forwarded-* headers either.
	fc.EnableTrustedProxyCheck = true
	app := fiber.New(fc)
	chain := []any{language(langs), closeWhenDraining(drain), web.ClientKey(cfg.TrustedProxies),
		settleBody(cfg.JSONBodyLimit, cfg.UploadBodyLimit), apiHeaders}
	for _, h := range headers {
		chain = append(chain, fiber.Handler(h))
	}
	chain = append(chain, web.RequestID)
	if tracing.On() { // off, not even a no-op span per request
		chain = append(chain, traceRequests(tracing))
	}
	app.Use(append(chain, accessLog(log, m), recoverPanics,
		cors.New(cors.Config{AllowOrigins: cfg.CORSOrigins, ExposeHeaders: "X-Request-Id, X-Next-Cursor, Retry-After, Idempotent-Replayed"}),
		failFast(breaker), requestDeadline(cfg.RequestTimeout), limitBody(cfg.JSONBodyLimit, cfg.UploadBodyLimit), authenticate(auth))...)
	return app
}

// encodeJSON is every c.JSON answer's encoder, the error mapper's included:
// json.Marshal's bytes and a newline, so that an answer printed in a
// terminal (curl) does not run into the prompt. The routes that write JSON
// themselves end it alike (sendEventsJSON, home, /openapi.json).
func encodeJSON(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

func (s *Server) start(context.Context) error {
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return err
	}
	s.ln = newConns(ln)
	s.ln.troubled = func(err error) {
		if err != nil {
			s.log.Error("accepting connections fails; retrying (out of file descriptors?)", zap.Error(err))
			return
		}
		s.log.Info("accepting connections again")
	}
	s.App.Server().ConnState = s.ln.connState
	s.served = make(chan struct{})
	go func() {
		defer close(s.served)
		if err := s.App.Listener(s.ln); err != nil && !errors.Is(err, net.ErrClosed) {
			s.log.Error("http server stopped", zap.Error(err))
		}
	}()
	s.log.Info("listening", zap.String("addr", ln.Addr().String()), zap.String("public_url", s.cfg.PublicURL))
	return nil
}

// stop drains: it stops accepting at once (a load balancer's new
// connections are refused, not accepted and dropped), then answers the
// connections already open, each answer closing its connection, until none
// is left or the grace is over. Then the connections with no request in
// hand are ended; those with one get their answer first.
func (s *Server) stop(ctx context.Context) error {
	s.drain.on.Store(true)
	s.streams.Close() // fasthttp waits for every open answer, and a stream never ends by itself
	if err := s.ln.Close(); err != nil {
		s.log.Warn("closing the listener", zap.Error(err))
	}
	s.log.Info("draining: not accepting; every answer closes its connection",
		zap.Duration("grace", s.cfg.ShutdownGrace), zap.Int("connections", s.ln.remaining()))
	if err := s.waitForConnections(ctx, s.cfg.ShutdownGrace); err != nil {
		return err
	}
	select {
	case <-s.served:
	case <-ctx.Done():
		return ctx.Err()
	}
	// Nothing is left for fasthttp to close: its shutdown only ends its
	// own bookkeeping (and Fiber's hooks).
	return s.App.ShutdownWithContext(ctx)
}

// waitForConnections waits until every accepted connection has gone. After
// the grace, the idle ones are ended (again at each round: an answer given
// after the grace leaves its connection idle).
func (s *Server) waitForConnections(ctx context.Context, grace time.Duration) error {
	over := grace <= 0
	timer := time.NewTimer(grace)
	defer timer.Stop()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	ended := 0
	for {
		if over {
			ended += s.ln.endIdle()
		}
		n := s.ln.remaining()
		if n == 0 {
			if ended > 0 {
				s.log.Info("drained: idle connections ended after the grace", zap.Int("ended", ended))
			}
			return nil
		}
		select {
		case <-ctx.Done():
			s.log.Error("stopped with requests still in hand", zap.Int("connections", n))
			return ctx.Err()
		case <-timer.C:
			over = true
		case <-tick.C:
		}
	}
}

// Addr is the address actually listened on (useful with port 0).
func (s *Server) Addr() string {
	if s.ln == nil {
		return ""
	}
	return s.ln.Addr().String()
}
