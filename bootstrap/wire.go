package bootstrap

import "go.uber.org/fx"

// Each module brings its own wiring, in one file, bootstrap/wire_<module>.go:
// the module, the ports it declares bound to what implements them in other
// modules, its settings from Config, its repositories on the store TANDEM_DB
// chooses and its HTTP routes. What several modules contribute (listeners,
// user-data owners, routes, audit renderings) meets in fx value groups, so
// only Options names every module, once.
//
// The files live in bootstrap rather than in a wiring package per module:
// a module's wiring names other modules and the adapters, and bootstrap is
// the one package that may know them all; modules/* keep importing only
// core, and no module's package grows an import of its neighbours.

// repos binds a module's repository ports on the store TANDEM_DB chooses:
// mem on the memory profile (also provided as itself, for the memory stores
// built on others, admin's StatsRepo), sql on SQLite and MySQL.
func repos(db DBKind, mem, sql any, ports ...any) fx.Option {
	ctor, as := sql, make([]fx.Annotation, 0, len(ports)+1)
	if db == DBMemory {
		ctor, as = mem, append(as, fx.As(fx.Self()))
	}
	for _, p := range ports {
		as = append(as, fx.As(p))
	}
	return fx.Provide(fx.Annotate(ctor, as...))
}
