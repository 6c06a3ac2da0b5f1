// Package httpapi is the HTTP adapter: the Fiber server, its middleware, the
// one error mapper and one thin handler file per module.
package httpapi

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/cors"
	"go.uber.org/fx"
	"go.uber.org/zap"
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
	// ShutdownGrace is how long a stopping server keeps answering (each
	// answer with Connection: close, /readyz 503) before it stops accepting,
	// so that load balancers and keep-alive clients move away first.
	ShutdownGrace  time.Duration
	TrustedProxies []string
	CORSOrigins    string
	APIKeys        []string // X-API-Key values of the key-guarded routes
	RateLimitIP    int      // requests per minute per IP on the auth routes
	ImageRateLimit int      // requests per minute per user on the image routes
	Stream         StreamConfig
}

// Server owns the Fiber app and its listener.
type Server struct {
	App     *fiber.App
	cfg     Config
	log     *zap.Logger
	ln      *silentConns
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

// NewServer builds the app with every route of the group and ties serving
// to the fx lifecycle; stopping drains in-flight requests.
func NewServer(lc fx.Lifecycle, cfg Config, log *zap.Logger, auth Authenticator, m *Metrics, streams *Streams,
	drain *Drain, breaker Breaker, routes []Route) *Server {
	s := &Server{App: newApp(cfg, log, auth, m, drain, breaker), cfg: cfg, log: log, streams: streams, drain: drain}
	for _, r := range routes {
		r.Register(s.App)
	}
	lc.Append(fx.Hook{OnStart: s.start, OnStop: s.stop})
	return s
}

func newApp(cfg Config, log *zap.Logger, auth Authenticator, m *Metrics, drain *Drain, breaker Breaker) *fiber.App {
	fc := fiber.Config{
		AppName:      "tandem",
		Immutable:    true, // values from the context outlive the handler safely
		ErrorHandler: NewErrorHandler(log),
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
	// X-Forwarded-For entry, which the client writes (clientKey reads it
	// from the right). Fiber trusts no proxy's X-Forwarded-* headers either.
	fc.EnableTrustedProxyCheck = true
	app := fiber.New(fc)
	app.Use(closeWhenDraining(drain), clientKey(parseProxies(cfg.TrustedProxies)),
		settleBody(cfg.JSONBodyLimit, cfg.UploadBodyLimit), apiHeaders, consoleHeaders, requestID, accessLog(log, m), recoverPanics,
		cors.New(cors.Config{AllowOrigins: cfg.CORSOrigins, ExposeHeaders: "X-Request-Id, X-Next-Cursor, Retry-After"}),
		failFast(breaker), requestDeadline(cfg.RequestTimeout), limitBody(cfg.JSONBodyLimit, cfg.UploadBodyLimit), authenticate(auth))
	return app
}

func (s *Server) start(context.Context) error {
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return err
	}
	s.ln = newSilentConns(ln)
	go func() {
		if err := s.App.Listener(s.ln); err != nil && !errors.Is(err, net.ErrClosed) {
			s.log.Error("http server stopped", zap.Error(err))
		}
	}()
	s.log.Info("listening", zap.String("addr", ln.Addr().String()), zap.String("public_url", s.cfg.PublicURL))
	return nil
}

// stop drains: answers keep coming for the grace (each closing its
// connection) until no connection is left or the grace is over; then the
// listener closes and in-flight requests finish.
func (s *Server) stop(ctx context.Context) error {
	s.log.Info("draining: every answer closes its connection", zap.Duration("grace", s.cfg.ShutdownGrace))
	s.drain.on.Store(true)
	s.streams.Close() // fasthttp waits for every open answer, and a stream never ends by itself
	s.waitForNoConnections(ctx, s.cfg.ShutdownGrace)
	return s.App.ShutdownWithContext(ctx) // closing the listener closes the silent connections
}

// waitForNoConnections waits until every connection that sent a request
// has gone (one that never spoke is closed with the listener), at most grace.
func (s *Server) waitForNoConnections(ctx context.Context, grace time.Duration) {
	deadline := time.Now().Add(grace)
	busy := func() bool {
		n := int(s.App.Server().GetOpenConnectionsCount())
		if s.ln != nil {
			n -= s.ln.silent()
		}
		return n > 0
	}
	for busy() && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
}

// Addr is the address actually listened on (useful with port 0).
func (s *Server) Addr() string {
	if s.ln == nil {
		return ""
	}
	return s.ln.Addr().String()
}
