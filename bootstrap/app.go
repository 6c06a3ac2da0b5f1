package bootstrap

import (
	"go.uber.org/fx"
	"go.uber.org/zap"

	"tandem/adapters/console"
	"tandem/adapters/httpapi"
	"tandem/core"
	"tandem/modules/accounts"
	"tandem/modules/partners"
)

// Options is the whole application for cfg: the modules, each with its own
// wiring (wire_<module>.go), the adapters the configuration chooses, and
// the HTTP server.
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
		wireThrottle(cfg.DB.Kind),
		wireAccounts(cfg.DB.Kind),
		wirePartners(cfg.DB.Kind),
		wirePremium(cfg.DB.Kind),
		wireRelationship(cfg.DB.Kind),
		wireImages(cfg.DB.Kind),
		wireNotifications(cfg.DB.Kind),
		pusher(cfg.Push, cfg.PushTimeout),
		wireEvents(cfg.DB.Kind),
		wireMemories(cfg.DB.Kind),
		wireMessages(cfg.DB.Kind),
		wireQuestions(cfg.DB.Kind),
		wireVersions(cfg.DB.Kind),
		wireFlags(cfg.DB.Kind),
		wireAdvice(cfg.DB.Kind),
		wireFeedback(cfg.DB.Kind),
		wireMoods(cfg.DB.Kind),
		wireChanges(cfg.DB.Kind),
		wirePasskeys(cfg.DB.Kind),
		relyingParty(cfg.Passkeys),
		wireIdempotency(cfg.DB.Kind),
		wireAdmin(cfg.DB.Kind),
		consoleConfig,
		consoleProbes(cfg),
		consoleSecret(cfg),
		consolePages(cfg),
		purchaseVerifier(cfg.Purchases),
		idTokens(cfg.SignIn, cfg.EncryptionKeys),
		productionWarnings(cfg),
		broadcast(cfg.Bus),
		fx.Provide(AsListener(func(s *httpapi.Streams) core.Listener { return s.Listener() })),
		languages,
		notifier,
		audited,
		httpapi.Module,
		console.Module,
		accountsLinks,
		connect,
		jobs,
		observability,
	)
}

// New builds the app; extra options (tests) may decorate clocks, fakes...
func New(cfg Config, extra ...fx.Option) *fx.App {
	return fx.New(Options(cfg), fx.Options(extra...))
}

// connect joins what modules contribute through value groups once the graph
// is built: event listeners to the bus, user-data owners to account deletion
// and export, shared-data owners to the end of a partnership (the feed's
// deletes). Doing it here, not in constructors, keeps the graph acyclic (a
// module may both publish events and listen to them).
var connect = fx.Invoke(fx.Annotate(
	func(bus *core.Bus, listeners []core.Listener, acc *accounts.Service, owners []core.UserData,
		pairs *partners.Service, shared []core.SharedData) {
		bus.Subscribe(listeners...)
		acc.AddDataOwners(owners...)
		pairs.AddShared(shared...)
	},
	fx.ParamTags(``, `group:"listeners"`, ``, `group:"userdata"`, ``, `group:"shared"`),
))

// newBus makes the event bus; listener failures are logged, since the fact
// that triggered them is already committed. Listeners join in connect.
func newBus(log *zap.Logger) *core.Bus {
	return core.NewBus(nil, func(name string, e core.Event, err error) {
		log.Error("event listener failed", zap.String("listener", name), zap.String("event", e.EventName()), zap.Error(err))
	})
}

// AsListener contributes a listener constructor to the bus.
func AsListener(f any) any { return fx.Annotate(f, fx.ResultTags(`group:"listeners"`)) }
