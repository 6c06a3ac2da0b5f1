package bootstrap

import (
	"go.uber.org/fx"

	"tandem/core"
	"tandem/modules/accounts"
	"tandem/modules/partners"
	"tandem/modules/premium"
	"tandem/modules/relationship"
)

// connect joins what modules contribute through value groups once the graph
// is built: event listeners to the bus, user-data owners to account deletion
// and export. Doing it here, not in constructors, keeps the graph acyclic
// (a module may both publish events and listen to them).
var connect = fx.Invoke(fx.Annotate(
	func(bus *core.Bus, listeners []core.Listener, acc *accounts.Service, owners []core.UserData) {
		bus.Subscribe(listeners...)
		acc.AddDataOwners(owners...)
	},
	fx.ParamTags(``, `group:"listeners"`, ``, `group:"userdata"`),
))

// ports binds the small interfaces a module declares in its ports.go to the
// services of other modules that implement them, and the modules' settings.
var ports = fx.Provide(
	func(p *partners.Service) premium.Partners { return p },
	func(p *partners.Service) relationship.Partnerships { return p },
	func(a *accounts.Service) relationship.Users { return a },
	func(c Config) premium.Policy { return c.Premium },
)
