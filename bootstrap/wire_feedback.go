package bootstrap

import (
	"go.uber.org/fx"

	"tandem/adapters/httpapi"
	"tandem/adapters/memory"
	"tandem/adapters/sqlstore"
	"tandem/adapters/web"
	"tandem/modules/feedback"
)

// wireFeedback: the users' feedback, its store and routes.
func wireFeedback(db DBKind) fx.Option {
	return fx.Options(
		feedback.Module,
		repos(db, memory.NewFeedbackRepo, sqlstore.NewFeedbackRepo, new(feedback.Repository)),
		fx.Provide(web.AsRoute(httpapi.NewFeedbackHandler)),
	)
}
