package httpapi

import (
	"go.uber.org/fx"

	"tandem/adapters/web"
)

// Module serves every route contributed to the "routes" group.
var Module = fx.Module("http",
	fx.Provide(fx.Annotate(NewServer, fx.ParamTags(``, ``, ``, ``, ``, ``, ``, ``, ``, ``, `group:"headers"`, `group:"routes"`))),
	fx.Provide(NewMetrics, NewMetricsServer, NewStreams, NewDrain, NewIdempotency, (*Metrics).Traffic),
	fx.Provide(
		web.AsRoute(NewHealthHandler),
		web.AsRoute(NewDocsHandler),
		web.AsRoute(NewVersionsHandler),
		web.AsRoute(NewFlagsHandler),
		web.AsRoute(NewAccountsHandler),
		web.AsRoute(NewPartnersHandler),
		web.AsRoute(NewPremiumHandler),
		web.AsRoute(NewRelationshipHandler),
		web.AsRoute(NewImagesHandler),
		web.AsRoute(NewNotificationsHandler),
		web.AsRoute(NewEventsHandler),
		web.AsRoute(NewMemoriesHandler),
		web.AsRoute(NewMessagesHandler),
		web.AsRoute(NewQuestionsHandler),
		web.AsRoute(NewAdviceHandler),
		web.AsRoute(NewFeedbackHandler),
		web.AsRoute(NewHomeHandler),
		web.AsRoute(NewMoodsHandler),
		web.AsRoute(NewPasskeysHandler),
		web.AsRoute(NewWellKnownHandler),
		web.AsRoute(func(s *Streams) *Streams { return s }),
	),
	fx.Invoke(func(*Server, *MetricsServer) {}), // the one deliberate Invoke: start serving
)
