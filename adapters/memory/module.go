package memory

import (
	"context"

	"go.uber.org/fx"
)

// Module is what the memory profile adds besides the stores: readiness.
// Each module's wiring (bootstrap/wire_<module>.go) binds its own
// repository ports to the stores of this package.
var Module = fx.Module("memory", fx.Provide(func() Ready { return Ready{} }))

// Ready answers readiness for the memory profile: there is no database to lose.
type Ready struct{}

func (Ready) Ping(context.Context) error { return nil }

// Open is the breaker of a store in the process's memory: never open.
func (Ready) Open() bool { return false }

// Guard: a breaker that never opens cancels nothing.
func (Ready) Guard(ctx context.Context) (context.Context, func()) { return ctx, func() {} }
