package bootstrap

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"tandem/adapters/push/expo"
	"tandem/adapters/push/fcm/fcmtest"
	"tandem/adapters/push/mempush"
	"tandem/adapters/telemetry"
	"tandem/modules/notifications"
)

func TestLoadPushForms(t *testing.T) {
	cases := []struct {
		value string
		err   string // "" when accepted
		kinds string
	}{
		{"", "", "log"},
		{"memory", "", "memory"},
		{"expo", "", "expo"},
		{"expo?url=http://127.0.0.1:9/push,fcm?project=p&credentials=/k.json&url=https://fcm.local", "", "expo,fcm"},
		{"expo,log", "", "expo,log"},
		{"expo?url=ftp://x", `"expo?url=ftp://x": url must be an http(s) URL`, ""},
		{"fcm?project=p&credentials=/k&url=nohost", `url must be an http(s) URL`, ""},
		{"log,memory", "memory: give each provider once, and at most one of log and memory", ""},
		{"expo,expo?url=http://x", "expo: give each provider once", ""},
		{"apns", `"apns" is not log, memory, expo or fcm`, ""},
	}
	for _, tc := range cases {
		c, err := Load(env(map[string]string{"TANDEM_PUSH": tc.value}))
		if tc.err == "" {
			var kinds []string
			for _, p := range c.Push {
				kinds = append(kinds, p.Kind)
			}
			if err != nil || strings.Join(kinds, ",") != tc.kinds {
				t.Fatalf("%q: %v %v", tc.value, kinds, err)
			}
			continue
		}
		if err == nil || strings.Count(err.Error(), "\n") != 0 || !strings.HasPrefix(err.Error(), "TANDEM_PUSH: ") ||
			!strings.Contains(err.Error(), tc.err) {
			t.Fatalf("%q: want one line naming TANDEM_PUSH with %q, got %v", tc.value, tc.err, err)
		}
	}
}

func TestPushRouterSendsThroughTheConfiguredSenders(t *testing.T) {
	devices := []notifications.Device{{ID: "1", Token: "ExponentPushToken[a]", Provider: "expo"}, {ID: "2", Token: "f", Provider: "fcm"}}
	outcomes := func(ds []notifications.Delivery) string {
		s := ""
		for _, d := range ds {
			s += [...]string{"F", "D", "X"}[d.Outcome]
		}
		return s
	}
	// expo at a closed port fails fast; what matters is who was asked.
	closed := "expo?url=http://127.0.0.1:1/push"
	cases := []struct {
		value      string
		want       string
		memPushes  int
		useMemory  bool
		errHasText string
		expo       bool // the receipt reader is the expo client
	}{
		{value: "log", want: "DD"},
		{value: "memory", want: "DD", memPushes: 2, useMemory: true},
		{value: closed, want: "FF", expo: true},
		{value: closed + ",memory", want: "FD", memPushes: 1, useMemory: true, expo: true},
		{value: "fcm?project=p&credentials=" + fcmtest.CredentialsFile(t, ""), want: "FF"},
		{value: "fcm?project=p&credentials=/does/not/exist.json", errHasText: "TANDEM_PUSH: fcm: credentials: open /does/not/exist.json"},
	}
	for _, tc := range cases {
		cfg, err := Load(env(map[string]string{"TANDEM_PUSH": tc.value}))
		if err != nil {
			t.Fatalf("%s: %v", tc.value, err)
		}
		var mem *mempush.Outbox
		if tc.useMemory {
			mem = mempush.New()
		}
		r, receipts, err := newPushRouter(zap.NewNop(), cfg.Push, mem, pushObservers{Tracing: telemetry.Off()})
		if tc.errHasText != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tc.errHasText) {
				t.Fatalf("%s: %v", tc.value, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.value, err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		if tc.value != "log" && tc.value != "memory" {
			cancel() // no real network: a cancelled context fails the providers at once
		}
		got := r.Push(ctx, notifications.Message{Title: "t"}, devices)
		cancel()
		if outcomes(got) != tc.want || (mem != nil && len(mem.All()) != tc.memPushes) {
			t.Fatalf("%s: %s", tc.value, outcomes(got))
		}
		if _, isExpo := receipts.(*expo.Client); isExpo != tc.expo {
			t.Fatalf("%s: receipts read by %T", tc.value, receipts)
		}
	}
}

// TestABadFCMCredentialsFileStopsTheStart: the app does not start, and says
// which variable to fix.
func TestABadFCMCredentialsFileStopsTheStart(t *testing.T) {
	cfg, err := Load(env(map[string]string{"TANDEM_DB": "memory", "TANDEM_ADDR": "127.0.0.1:0", "TANDEM_BLOBS": "memory",
		"TANDEM_MAIL": "memory", "TANDEM_ENV": "development", "TANDEM_PUSH": "fcm?project=p&credentials=" + filepath.Join(t.TempDir(), "missing.json")}))
	if err != nil {
		t.Fatal(err)
	}
	app := New(cfg, fx.NopLogger)
	if err := app.Err(); err == nil || !strings.Contains(err.Error(), "TANDEM_PUSH: fcm: credentials") {
		t.Fatalf("got %v", err)
	}
}
