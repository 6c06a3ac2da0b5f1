package bootstrap

import (
	"go.uber.org/fx"

	"tandem/adapters/httpapi"
	"tandem/adapters/memory"
	"tandem/adapters/sqlstore"
	"tandem/adapters/web"
	"tandem/core"
	"tandem/modules/changes"
)

// wireChanges: the durable change feed (issue 47), its store, the renderer
// its stores record puts with (the REST answers' mappers), its listener
// (the changes a memory store records after the write) and its route.
func wireChanges(db DBKind) fx.Option {
	return fx.Options(
		changes.Module,
		repos(db, memory.NewChangeRepo, sqlstore.NewChangeRepo, new(changes.Repository)),
		fx.Provide(
			func(clock core.Clock) changes.Recording {
				return changes.Recording{Render: httpapi.RenderChange, Clock: clock}
			},
			func(c Config) changes.Settings { return changes.Settings{Retention: c.ChangesRetention} },
			AsListener(func(s *changes.Service) core.Listener { return s.Listener() }),
			web.AsRoute(httpapi.NewChangesHandler),
		),
	)
}
