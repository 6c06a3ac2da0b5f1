package idempotency

import (
	"go.uber.org/fx"

	"tandem/core"
)

// Module provides the service and its account-deletion listener; the
// Repository is bound by the storage adapter, Settings by bootstrap.
var Module = fx.Module("idempotency",
	fx.Provide(NewService),
	fx.Provide(fx.Annotate(func(s *Service) core.Listener { return s.Listener() }, fx.ResultTags(`group:"listeners"`))),
)
