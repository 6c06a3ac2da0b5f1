package httpapi

import "go.uber.org/fx"

// Module serves every route contributed to the "routes" group.
var Module = fx.Module("http",
	fx.Provide(NewServer),
	fx.Provide(NewMetrics, NewMetricsServer, NewStreams, NewDrain, NewIdempotency, (*Metrics).Traffic),
	fx.Provide(
		AsRoute(NewHealthHandler),
		AsRoute(NewDocsHandler),
		AsRoute(NewVersionsHandler),
		AsRoute(NewFlagsHandler),
		AsRoute(NewAccountsHandler),
		AsRoute(NewPartnersHandler),
		AsRoute(NewPremiumHandler),
		AsRoute(NewRelationshipHandler),
		AsRoute(NewImagesHandler),
		AsRoute(NewNotificationsHandler),
		AsRoute(NewEventsHandler),
		AsRoute(NewMemoriesHandler),
		AsRoute(NewMessagesHandler),
		AsRoute(NewQuestionsHandler),
		AsRoute(NewAdviceHandler),
		AsRoute(NewFeedbackHandler),
		AsRoute(NewHomeHandler),
		AsRoute(NewMoodsHandler),
		AsRoute(NewPasskeysHandler),
		AsRoute(NewWellKnownHandler),
		AsRoute(func(s *Streams) *Streams { return s }),
	),
	fx.Invoke(func(*Server, *MetricsServer) {}), // the one deliberate Invoke: start serving
)
