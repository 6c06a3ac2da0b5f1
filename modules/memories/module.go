package memories

import (
	"go.uber.org/fx"

	"tandem/core"
)

// Module provides the memory use cases and contributes the service as a
// user-data owner. Storage is bound by the adapter modules; Partners,
// Notifier and Settings by bootstrap/wire_memories.go, so this package never imports
// them.
var Module = fx.Module("memories",
	fx.Provide(NewService),
	fx.Provide(fx.Annotate(func(s *Service) core.UserData { return s }, fx.ResultTags(`group:"userdata"`))),
)
