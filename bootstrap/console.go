package bootstrap

import (
	"context"
	"fmt"
	"net"
	"strings"

	"go.uber.org/fx"

	"tandem/adapters/httpapi"
	"tandem/core"
	"tandem/modules/accounts"
	"tandem/modules/images"
)

// consoleProbes contributes the administrator console's readiness checks:
// the database, the blob store, mail, push and the bus, each as configured.
func consoleProbes(cfg Config) fx.Option {
	probe := func(f any) any { return fx.Annotate(f, fx.ResultTags(`group:"probes"`)) }
	return fx.Provide(
		probe(func(db httpapi.Pinger) httpapi.Probe {
			return httpapi.Probe{Name: "database (" + string(cfg.DB.Kind) + ")", Check: db.Ping}
		}),
		probe(func(b images.Blobs) httpapi.Probe {
			return httpapi.Probe{Name: "blob store (" + cfg.Blobs.Kind + ")", Check: blobsReady(b)}
		}),
		probe(func(o accounts.Outbox) httpapi.Probe {
			return httpapi.Probe{Name: "mail (" + cfg.Mail.Kind + ")", Check: mailReady(cfg.Mail, o)}
		}),
		probe(func() httpapi.Probe {
			return httpapi.Probe{Name: "push (" + pushKinds(cfg.Push) + ")", Check: func(context.Context) error { return nil }}
		}),
		probe(func(b core.Broadcast) httpapi.Probe {
			return httpapi.Probe{Name: "bus (" + cfg.Bus.Kind + ")", Check: busReady(b)}
		}),
	)
}

// blobsReady reads a key that never exists: "not found" proves the store
// answers; anything else is the store failing.
func blobsReady(b images.Blobs) func(context.Context) error {
	return func(ctx context.Context) error {
		r, _, err := b.Open(ctx, "readiness-probe/none")
		if err == nil {
			r.Close()
			return nil
		}
		if core.IsKind(err, core.KindNotFound) {
			return nil
		}
		return core.Unavailable("unavailable", "the blob store does not answer")
	}
}

// mailReady reads the outbox (it lives in the database) and, for SMTP,
// opens a connection to the relay.
func mailReady(m MailConfig, o accounts.Outbox) func(context.Context) error {
	return func(ctx context.Context) error {
		n, err := o.PendingMail(ctx)
		if err != nil {
			return core.Unavailable("unavailable", "the mail outbox cannot be read")
		}
		if m.Kind == "smtp" {
			var d net.Dialer
			c, err := d.DialContext(ctx, "tcp", m.Host)
			if err != nil {
				return core.Unavailable("unavailable", fmt.Sprintf("the SMTP relay does not answer (%d mails waiting)", n))
			}
			c.Close()
		}
		return nil
	}
}

// busReady asks a cross-process bus whether it is connected; the local bus
// always is.
func busReady(b core.Broadcast) func(context.Context) error {
	return func(context.Context) error {
		if rb, ok := b.(*reportingBus); ok {
			b = rb.Broadcast
		}
		if c, ok := b.(interface{ Connected() bool }); ok && !c.Connected() {
			return core.Unavailable("unavailable", "the bus is not connected")
		}
		return nil
	}
}

func pushKinds(ps []PushConfig) string {
	kinds := make([]string, len(ps))
	for i, p := range ps {
		kinds[i] = p.Kind
	}
	return strings.Join(kinds, ", ")
}
