package versions

import "go.uber.org/fx"

// Module provides the version-check use cases. The repository is bound by
// the storage adapters. The module stores no user data: the userId and
// deviceInfo of a check are checked and dropped.
var Module = fx.Module("versions", fx.Provide(NewService))
