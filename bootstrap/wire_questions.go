package bootstrap

import (
	"go.uber.org/fx"

	"tandem/adapters/httpapi"
	"tandem/adapters/memory"
	"tandem/adapters/sqlstore"
	"tandem/adapters/web"
	"tandem/modules/accounts"
	"tandem/modules/partners"
	"tandem/modules/questions"
)

// wireQuestions: the daily questions, their store, ports and routes.
func wireQuestions(db DBKind) fx.Option {
	return fx.Options(
		questions.Module,
		repos(db, memory.NewQuestionRepo, sqlstore.NewQuestionRepo, new(questions.Repository)),
		fx.Provide(
			func(p *partners.Service) questions.Partnerships { return p },
			func(a *accounts.Service) questions.Users { return a },
			func(n *Notifier) questions.Notifier { return n },
			web.AsRoute(httpapi.NewQuestionsHandler),
		),
	)
}
