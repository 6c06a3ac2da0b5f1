package bootstrap

import (
	"go.uber.org/fx"
	"go.uber.org/zap"

	"tandem/adapters/console"
	"tandem/adapters/httpapi"
	"tandem/core"
	"tandem/modules/accounts"
	adminmod "tandem/modules/admin" // bootstrap has its own admin command
	"tandem/modules/advice"
	"tandem/modules/events"
	"tandem/modules/feedback"
	"tandem/modules/flags"
	"tandem/modules/idempotency"
	"tandem/modules/images"
	"tandem/modules/memories"
	"tandem/modules/messages"
	"tandem/modules/moods"
	"tandem/modules/notifications"
	"tandem/modules/partners"
	"tandem/modules/passkeys"
	"tandem/modules/premium"
	"tandem/modules/questions"
	"tandem/modules/relationship"
	"tandem/modules/throttle"
	"tandem/modules/versions"
)

// Options is the whole application for cfg: the modules, the adapters the
// configuration chooses, and the HTTP server.
func Options(cfg Config) fx.Option {
	return fx.Options(
		fx.Supply(cfg, cfg.HTTP),
		fx.Provide(NewLogger),
		fxLogger,
		tracing(cfg),
		fx.Provide(
			func() core.Clock { return core.SystemClock{} },
			func() core.IDs { return core.NewUUIDv7() },
			newBus,
			func(b *core.Bus) core.Publisher { return b },
		),
		storage(cfg.DB),
		blobs(cfg.Blobs),
		mailer(cfg),
		security(cfg),
		throttle.Module,
		accounts.Module,
		partners.Module,
		premium.Module,
		relationship.Module,
		images.Module,
		notifications.Module,
		pusher(cfg.Push, cfg.PushTimeout),
		events.Module,
		memories.Module,
		messages.Module,
		questions.Module,
		versions.Module,
		flags.Module,
		advice.Module,
		feedback.Module,
		moods.Module,
		passkeys.Module,
		relyingParty(cfg.Passkeys),
		idempotency.Module,
		adminmod.Module,
		consoleConfig,
		consoleProbes(cfg),
		consoleSecret(cfg),
		purchaseVerifier(cfg.Purchases),
		idTokens(cfg.SignIn, cfg.EncryptionKeys),
		productionWarnings(cfg),
		broadcast(cfg.Bus),
		fx.Provide(AsListener(func(s *httpapi.Streams) core.Listener { return s.Listener() })),
		ports,
		languages,
		notifier,
		audited,
		httpapi.Module,
		console.Module,
		connect,
		jobs,
		observability,
	)
}

// New builds the app; extra options (tests) may decorate clocks, fakes...
func New(cfg Config, extra ...fx.Option) *fx.App {
	return fx.New(Options(cfg), fx.Options(extra...))
}

// newBus makes the event bus; listener failures are logged, since the fact
// that triggered them is already committed. Listeners join in connect.
func newBus(log *zap.Logger) *core.Bus {
	return core.NewBus(nil, func(name string, e core.Event, err error) {
		log.Error("event listener failed", zap.String("listener", name), zap.String("event", e.EventName()), zap.Error(err))
	})
}

// AsListener contributes a listener constructor to the bus.
func AsListener(f any) any { return fx.Annotate(f, fx.ResultTags(`group:"listeners"`)) }
