package changes

import "go.uber.org/fx"

// Module provides the feed's use cases; its Repository is bound by the
// adapter modules and its Settings by bootstrap.
var Module = fx.Module("changes", fx.Provide(NewService))
