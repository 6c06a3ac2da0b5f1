package bootstrap

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"tandem/adapters/push"
	"tandem/adapters/push/expo"
	"tandem/adapters/push/fcm"
	"tandem/adapters/push/logpush"
	"tandem/adapters/push/mempush"
	"tandem/modules/notifications"
)

// pusher binds notifications.Pusher for TANDEM_PUSH: a router that sends each
// device through the provider its registration names (expo, fcm). log or
// memory alone take every device and count it as sent; listed beside
// providers they take the devices whose provider is not listed. Without
// either, such a device counts in the total and is not sent. The memory
// sender is also provided as *mempush.Outbox, for tests and QA. It binds
// notifications.ReceiptReader too: the expo client when expo is listed (no
// other sender hands out tickets), and the ReceiptLog; and
// notifications.Providers, every provider adapter whether configured or not
// (a device registers for any of them).
func pusher(cfgs []PushConfig, timeout time.Duration) fx.Option {
	memory := false
	for _, c := range cfgs {
		memory = memory || c.Kind == "memory"
	}
	adapters := fx.Provide(func(log *zap.Logger, o pushObservers) (pushAdapters, error) {
		return newPushAdapters(log, cfgs, nil, timeout, o)
	})
	if memory {
		adapters = fx.Provide(mempush.New, func(log *zap.Logger, out *mempush.Outbox, o pushObservers) (pushAdapters, error) {
			return newPushAdapters(log, cfgs, out, timeout, o)
		})
	}
	return fx.Options(adapters, fx.Provide(
		func(log *zap.Logger) notifications.ReceiptLog { return receiptLog{log} },
		func() notifications.Providers { return push.Providers{} },
	))
}

// pushAdapters are the Pusher and the ReceiptReader of TANDEM_PUSH.
type pushAdapters struct {
	fx.Out
	Pusher   notifications.Pusher
	Receipts notifications.ReceiptReader
}

func newPushAdapters(log *zap.Logger, cfgs []PushConfig, mem *mempush.Outbox, timeout time.Duration, o pushObservers) (pushAdapters, error) {
	r, receipts, err := newPushRouter(log, cfgs, mem, o)
	if err != nil {
		return pushAdapters{}, err
	}
	return pushAdapters{Pusher: timedPusher{Pusher: r, timeout: timeout}, Receipts: receipts}, nil
}

// timedPusher bounds one push to every device (TANDEM_PUSH_TIMEOUT): a slow
// or dead provider costs the request that pushes at most that long, and
// the deliveries it did not answer in time count as failed (the
// notification is saved, not sent).
type timedPusher struct {
	notifications.Pusher
	timeout time.Duration
}

func (p timedPusher) Push(ctx context.Context, m notifications.Message, to []notifications.Device) []notifications.Delivery {
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	return p.Pusher.Push(ctx, m, to)
}

// newPushRouter builds the providers of cfgs, and the receipt reader (no
// receipts without expo); fcm reads its credentials file now, so a bad one
// stops the start with a line naming TANDEM_PUSH.
func newPushRouter(log *zap.Logger, cfgs []PushConfig, mem *mempush.Outbox, o pushObservers) (*push.Router, notifications.ReceiptReader, error) {
	plain := &http.Client{Timeout: 10 * time.Second}
	providers := map[string]notifications.Pusher{}
	var fallback notifications.Pusher
	var receipts notifications.ReceiptReader = noReceipts{}
	for _, c := range cfgs {
		var p notifications.Pusher
		switch c.Kind {
		case "log", "memory":
			if fallback != nil {
				return nil, nil, fmt.Errorf("TANDEM_PUSH: give at most one of log and memory")
			}
			if c.Kind == "memory" {
				fallback = mem
			} else {
				fallback = logpush.New(log)
			}
			continue
		case "expo":
			e := expo.New(c.URL, o.Tracing.Client(plain, "expo"))
			p, receipts = e, e
		case "fcm":
			f, err := fcm.New(fcm.Config{Project: c.Project, CredentialsFile: c.Credentials, BaseURL: c.URL, HTTPClient: o.Tracing.Client(plain, "fcm")})
			if err != nil {
				return nil, nil, fmt.Errorf("TANDEM_PUSH: %w", err)
			}
			p = f
		default:
			return nil, nil, fmt.Errorf("TANDEM_PUSH: unknown provider %q", c.Kind)
		}
		provider := c.Kind
		if _, dup := providers[provider]; dup {
			return nil, nil, fmt.Errorf("TANDEM_PUSH: %s is given twice", c.Kind)
		}
		providers[provider] = o.observe(provider, p)
	}
	return push.NewRouter(log, providers, fallback), receipts, nil
}

// noReceipts is the receipt reader without expo: no ticket is ever stored
// then, and one left from an earlier configuration gets no answer until it
// is dropped.
type noReceipts struct{}

func (noReceipts) Receipts(context.Context, []string) (map[string]notifications.Receipt, error) {
	return nil, nil
}

// receiptLog logs what the receipts said: a failure as a warning, a dead
// token (its device is removed) and a ticket never answered at info level,
// an ok at debug level.
type receiptLog struct{ log *zap.Logger }

func (l receiptLog) Receipt(_ context.Context, t notifications.Ticket, r notifications.Receipt) {
	fields := []zap.Field{zap.String("ticket", t.ID), zap.String("device_id", t.DeviceID)}
	switch r.Status {
	case notifications.ReceiptOK:
		l.log.Debug("push receipt ok", fields...)
	case notifications.ReceiptDeadToken:
		l.log.Info("push receipt: token dead; the device is removed", append(fields, zap.String("error", r.Error))...)
	default:
		l.log.Warn("push receipt: not delivered", append(fields, zap.String("error", r.Error))...)
	}
}

func (l receiptLog) Unanswered(_ context.Context, t notifications.Ticket) {
	l.log.Info("push receipt never came; the ticket is dropped", zap.String("ticket", t.ID),
		zap.String("device_id", t.DeviceID), zap.Time("sent_at", t.SentAt))
}
