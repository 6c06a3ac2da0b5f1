package images

import (
	"go.uber.org/fx"

	"tandem/core"
)

// Module provides the image use cases and contributes the service as a
// user-data owner. The repository and the blob store are bound by adapters;
// Settings and the Reporter by bootstrap.
var Module = fx.Module("images",
	fx.Provide(NewService, func(r Repository, b Blobs, c core.Clock, s Settings) *Sweeper {
		return NewSweeper(r, b, c, s.SweepGrace)
	}),
	fx.Provide(fx.Annotate(func(s *Service) core.UserData { return s }, fx.ResultTags(`group:"userdata"`))),
)
