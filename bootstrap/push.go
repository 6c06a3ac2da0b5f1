package bootstrap

import (
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
// sender is also provided as *mempush.Outbox, for tests and QA.
func pusher(cfgs []PushConfig) fx.Option {
	memory := false
	for _, c := range cfgs {
		memory = memory || c.Kind == "memory"
	}
	if memory {
		return fx.Provide(mempush.New,
			func(log *zap.Logger, out *mempush.Outbox) (notifications.Pusher, error) {
				return newPushRouter(log, cfgs, out)
			})
	}
	return fx.Provide(func(log *zap.Logger) (notifications.Pusher, error) { return newPushRouter(log, cfgs, nil) })
}

// newPushRouter builds the providers of cfgs; fcm reads its credentials file
// now, so a bad one stops the start with a line naming TANDEM_PUSH.
func newPushRouter(log *zap.Logger, cfgs []PushConfig, mem *mempush.Outbox) (*push.Router, error) {
	hc := &http.Client{Timeout: 10 * time.Second}
	providers := map[notifications.Provider]notifications.Pusher{}
	var fallback notifications.Pusher
	for _, c := range cfgs {
		var p notifications.Pusher
		switch c.Kind {
		case "log", "memory":
			if fallback != nil {
				return nil, fmt.Errorf("TANDEM_PUSH: give at most one of log and memory")
			}
			if c.Kind == "memory" {
				fallback = mem
			} else {
				fallback = logpush.New(log)
			}
			continue
		case "expo":
			p = expo.New(c.URL, hc)
		case "fcm":
			f, err := fcm.New(fcm.Config{Project: c.Project, CredentialsFile: c.Credentials, BaseURL: c.URL, HTTPClient: hc})
			if err != nil {
				return nil, fmt.Errorf("TANDEM_PUSH: %w", err)
			}
			p = f
		default:
			return nil, fmt.Errorf("TANDEM_PUSH: unknown provider %q", c.Kind)
		}
		provider := notifications.Provider(c.Kind)
		if _, dup := providers[provider]; dup {
			return nil, fmt.Errorf("TANDEM_PUSH: %s is given twice", c.Kind)
		}
		providers[provider] = p
	}
	return push.NewRouter(log, providers, fallback), nil
}
