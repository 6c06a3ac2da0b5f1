// Package push routes each device's push to the provider named by the device
// (TANDEM_PUSH); its sub-packages are the providers: expo, fcm, and the log
// and memory senders.
package push

import (
	"context"
	"errors"

	"go.uber.org/zap"

	"tandem/modules/notifications"
)

var _ notifications.Pusher = (*Router)(nil)

// Router sends each device through the pusher of its provider. Devices whose
// provider has none go to the fallback (the log or memory sender, when one
// is configured) or fail: counted in the total, not sent. It logs every
// failure and every dead token, since the service only counts them.
type Router struct {
	providers map[string]notifications.Pusher
	fallback  notifications.Pusher
	log       *zap.Logger
}

// NewRouter routes to providers; fallback may be nil.
func NewRouter(log *zap.Logger, providers map[string]notifications.Pusher, fallback notifications.Pusher) *Router {
	return &Router{providers: providers, fallback: fallback, log: log}
}

// ErrNoProvider is the failure of a device whose provider is not configured.
var ErrNoProvider = errors.New("push: no provider configured for this device (TANDEM_PUSH)")

// Push groups the devices by pusher, sends each group in one call, and puts
// the deliveries back in the order of to.
func (r *Router) Push(ctx context.Context, m notifications.Message, to []notifications.Device) []notifications.Delivery {
	out := make([]notifications.Delivery, len(to))
	// Group by the provider that sends; "" is the fallback.
	groups := map[string][]int{}
	var order []string
	for i, d := range to {
		via := d.Provider
		if _, ok := r.providers[via]; !ok {
			via = ""
		}
		if via == "" && r.fallback == nil {
			out[i] = notifications.Delivery{Outcome: notifications.OutcomeFailed, Err: ErrNoProvider}
			continue
		}
		if _, seen := groups[via]; !seen {
			order = append(order, via)
		}
		groups[via] = append(groups[via], i)
	}
	for _, via := range order {
		p, ok := r.providers[via]
		if !ok {
			p = r.fallback
		}
		idx := groups[via]
		devices := make([]notifications.Device, len(idx))
		for j, i := range idx {
			devices[j] = to[i]
		}
		got := p.Push(ctx, m, devices)
		for j, i := range idx {
			if j < len(got) {
				out[i] = got[j]
			} else {
				out[i] = notifications.Delivery{Outcome: notifications.OutcomeFailed, Err: errors.New("push: no answer for this device")}
			}
		}
	}
	for i, d := range out {
		switch d.Outcome {
		case notifications.OutcomeFailed:
			r.log.Warn("push failed", zap.String("user_id", to[i].UserID), zap.String("device_id", to[i].ID),
				zap.String("provider", to[i].Provider), zap.Error(d.Err))
		case notifications.OutcomeDeadToken:
			r.log.Info("push token dead; the device is removed", zap.String("user_id", to[i].UserID),
				zap.String("device_id", to[i].ID), zap.String("provider", to[i].Provider))
		}
	}
	return out
}
