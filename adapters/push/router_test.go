package push_test

import (
	"context"
	"errors"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"tandem/adapters/push"
	"tandem/modules/notifications"
)

// scripted answers each device with the outcome named by its token, and
// records which tokens it was given.
type scripted struct {
	got   []string
	short bool // answer one delivery too few
}

func (s *scripted) Push(_ context.Context, _ notifications.Message, to []notifications.Device) []notifications.Delivery {
	out := make([]notifications.Delivery, 0, len(to))
	for _, d := range to {
		s.got = append(s.got, d.Token)
		switch d.Token[len(d.Token)-1] {
		case 'x':
			out = append(out, notifications.Delivery{Outcome: notifications.OutcomeDeadToken})
		case '!':
			out = append(out, notifications.Delivery{Outcome: notifications.OutcomeFailed, Err: errors.New("refused")})
		default:
			out = append(out, notifications.Delivery{Outcome: notifications.OutcomeDelivered})
		}
	}
	if s.short {
		out = out[:len(out)-1]
	}
	return out
}

func dev(id string, p, token string) notifications.Device {
	return notifications.Device{ID: id, UserID: "u1", Token: token, Provider: p}
}

func outcomes(ds []notifications.Delivery) string {
	s := ""
	for _, d := range ds {
		s += [...]string{"F", "D", "X"}[d.Outcome]
	}
	return s
}

func TestRouterSendsEachDeviceThroughItsProvider(t *testing.T) {
	t.Parallel()
	expo, fcm, fallback := &scripted{}, &scripted{}, &scripted{}
	devices := []notifications.Device{dev("1", "expo", "e1"), dev("2", "fcm", "f1x"), dev("3", "expo", "e2!"),
		dev("4", "fcm", "f2"), dev("5", "apns", "a1")}
	cases := []struct {
		name      string
		providers map[string]notifications.Pusher
		fallback  notifications.Pusher
		want      string
		expo, fcm []string
		fallen    []string
	}{
		{"both providers; an unknown one fails", map[string]notifications.Pusher{"expo": expo, "fcm": fcm}, nil,
			"DXFDF", []string{"e1", "e2!"}, []string{"f1x", "f2"}, nil},
		{"expo only: fcm devices fail", map[string]notifications.Pusher{"expo": expo}, nil,
			"DFFFF", []string{"e1", "e2!"}, nil, nil},
		{"expo with the log fallback", map[string]notifications.Pusher{"expo": expo}, fallback,
			"DXFDD", []string{"e1", "e2!"}, nil, []string{"f1x", "f2", "a1"}},
		{"log or memory alone takes every device", nil, fallback,
			"DXFDD", nil, nil, []string{"e1", "f1x", "e2!", "f2", "a1"}},
	}
	for _, tc := range cases {
		expo.got, fcm.got, fallback.got = nil, nil, nil
		core, logs := observer.New(zapcore.InfoLevel)
		r := push.NewRouter(zap.New(core), tc.providers, tc.fallback)
		got := r.Push(context.Background(), notifications.Message{Title: "t"}, devices)
		if outcomes(got) != tc.want || !same(expo.got, tc.expo) || !same(fcm.got, tc.fcm) || !same(fallback.got, tc.fallen) {
			t.Fatalf("%s: %s; expo %v fcm %v fallback %v", tc.name, outcomes(got), expo.got, fcm.got, fallback.got)
		}
		failed, dead := 0, 0
		for i, d := range got {
			if d.Outcome == notifications.OutcomeFailed && d.Err == nil {
				t.Fatalf("%s: failure %d without a reason", tc.name, i)
			}
			switch d.Outcome {
			case notifications.OutcomeFailed:
				failed++
			case notifications.OutcomeDeadToken:
				dead++
			}
		}
		if logs.FilterMessage("push failed").Len() != failed || logs.FilterMessage("push token dead; the device is removed").Len() != dead {
			t.Fatalf("%s: logged %v", tc.name, logs.All())
		}
		if tc.fallback == nil && tc.want[4] == 'F' && !errors.Is(got[4].Err, push.ErrNoProvider) {
			t.Fatalf("%s: %v", tc.name, got[4].Err)
		}
	}
}

func TestRouterFailsWhatAProviderLeftUnanswered(t *testing.T) {
	t.Parallel()
	short := &scripted{short: true}
	r := push.NewRouter(zap.NewNop(), map[string]notifications.Pusher{"fcm": short}, nil)
	got := r.Push(context.Background(), notifications.Message{}, []notifications.Device{dev("1", "fcm", "a"), dev("2", "fcm", "b")})
	if outcomes(got) != "DF" || got[1].Err == nil {
		t.Fatalf("%s %v", outcomes(got), got)
	}
	if got := r.Push(context.Background(), notifications.Message{}, nil); len(got) != 0 {
		t.Fatalf("no devices: %v", got)
	}
}

func same(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
