// Package httpapi is the HTTP adapter: the Fiber server, its middleware, the
// one error mapper and one thin handler file per module.
package httpapi

import (
	"context"
	"errors"
	"net"
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
	TrustedProxies  []string
	CORSOrigins     string
	APIKeys         []string // X-API-Key values of the key-guarded routes
	RateLimitIP     int      // requests per minute per IP on the auth routes
	ImageRateLimit  int      // requests per minute per user on the image routes
	Stream          StreamConfig
}

// Server owns the Fiber app and its listener.
type Server struct {
	App     *fiber.App
	cfg     Config
	log     *zap.Logger
	ln      net.Listener
	streams *Streams
}

// NewServer builds the app with every route of the group and ties serving
// to the fx lifecycle; stopping drains in-flight requests.
func NewServer(lc fx.Lifecycle, cfg Config, log *zap.Logger, auth Authenticator, m *Metrics, streams *Streams,
	routes []Route) *Server {
	s := &Server{App: newApp(cfg, log, auth, m), cfg: cfg, log: log, streams: streams}
	for _, r := range routes {
		r.Register(s.App)
	}
	lc.Append(fx.Hook{OnStart: s.start, OnStop: s.stop})
	return s
}

func newApp(cfg Config, log *zap.Logger, auth Authenticator, m *Metrics) *fiber.App {
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
	app.Use(clientKey(parseProxies(cfg.TrustedProxies)),
		settleBody(cfg.JSONBodyLimit, cfg.UploadBodyLimit), apiHeaders, requestID, accessLog(log, m), recoverPanics,
		cors.New(cors.Config{AllowOrigins: cfg.CORSOrigins, ExposeHeaders: "X-Request-Id, X-Next-Cursor, Retry-After"}),
		requestDeadline(cfg.RequestTimeout), limitBody(cfg.JSONBodyLimit, cfg.UploadBodyLimit), authenticate(auth))
	return app
}

func (s *Server) start(context.Context) error {
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return err
	}
	s.ln = ln
	go func() {
		if err := s.App.Listener(ln); err != nil && !errors.Is(err, net.ErrClosed) {
			s.log.Error("http server stopped", zap.Error(err))
		}
	}()
	s.log.Info("listening", zap.String("addr", ln.Addr().String()), zap.String("public_url", s.cfg.PublicURL))
	return nil
}

func (s *Server) stop(ctx context.Context) error {
	s.log.Info("draining in-flight requests")
	s.streams.Close() // fasthttp waits for every open answer, and a stream never ends by itself
	return s.App.ShutdownWithContext(ctx)
}

// Addr is the address actually listened on (useful with port 0).
func (s *Server) Addr() string {
	if s.ln == nil {
		return ""
	}
	return s.ln.Addr().String()
}
