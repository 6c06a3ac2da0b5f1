package bootstrap

import (
	"context"
	"io"
	"strings"
	"testing"

	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"tandem/adapters/bus/natsbus/natstest"
)

// TestServeRefusesToStartWithoutMailInProduction: production's default
// (no TANDEM_MAIL) is one line naming TANDEM_MAIL at serve, beside the one
// of TANDEM_PURCHASES; smtp takes the mail line away.
func TestServeRefusesToStartWithoutMailInProduction(t *testing.T) {
	vars := map[string]string{"TANDEM_DB": "memory", "TANDEM_BLOBS": "memory", "TANDEM_ADDR": "127.0.0.1:0"}
	err := Run(context.Background(), []string{"serve"}, env(vars), io.Discard)
	if err == nil {
		t.Fatal("started")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "TANDEM_PURCHASES: ") ||
		!strings.HasPrefix(lines[1], "TANDEM_MAIL: set smtp://[USER:PASS@]HOST:PORT") {
		t.Fatalf("want a TANDEM_PURCHASES and a TANDEM_MAIL line, got %q", err)
	}
	vars["TANDEM_MAIL"] = "smtp://127.0.0.1:2525"
	err = Run(context.Background(), []string{"serve"}, env(vars), io.Discard)
	if err == nil || strings.Contains(err.Error(), "TANDEM_MAIL") {
		t.Fatalf("with smtp: %v", err)
	}
	// the commands that send no mail run without it
	var out strings.Builder
	delete(vars, "TANDEM_MAIL")
	if err := Run(context.Background(), []string{"migrate"}, env(vars), &out); err != nil {
		t.Fatalf("migrate: %v", err)
	}
}

// startLogs starts the app of vars and returns its warnings.
func startLogs(t *testing.T, vars map[string]string) *observer.ObservedLogs {
	t.Helper()
	base := map[string]string{"TANDEM_DB": "memory", "TANDEM_BLOBS": "memory", "TANDEM_PUSH": "memory",
		"TANDEM_ADDR": "127.0.0.1:0", "TANDEM_METRICS_ADDR": "", "TANDEM_MAIL": "smtp://127.0.0.1:2525"}
	for k, v := range vars {
		base[k] = v
	}
	cfg, err := Load(env(base))
	if err != nil {
		t.Fatal(err)
	}
	obs, logs := observer.New(zapcore.WarnLevel)
	app := fxtest.New(t, Options(cfg), fx.Decorate(func() *zap.Logger { return zap.New(obs) }))
	app.RequireStart()
	app.RequireStop()
	return logs
}

// TestPlainHTTPPublicURLWarnsInProduction: an http:// public URL in
// production (the console's cookies lose Secure) is one warning at start.
func TestPlainHTTPPublicURLWarnsInProduction(t *testing.T) {
	for _, tc := range []struct {
		name string
		vars map[string]string
		want int
	}{
		{"production, the default URL", nil, 1},
		{"production, http", map[string]string{"TANDEM_PUBLIC_URL": "HTTP://api.tandem.test"}, 1},
		{"production, https", map[string]string{"TANDEM_PUBLIC_URL": "https://api.tandem.test"}, 0},
		{"development, http", map[string]string{"TANDEM_ENV": "development"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logs := startLogs(t, tc.vars)
			if got := logs.FilterMessageSnippet("without Secure").FilterField(zap.String("variable", "TANDEM_PUBLIC_URL")).Len(); got != tc.want {
				t.Fatalf("%d warnings, want %d: %v", got, tc.want, logs.All())
			}
		})
	}
}

// TestNATSWithoutASecretWarnsInDevelopment: development may run NATS
// without TANDEM_BUS_SECRET, on a secret of the process's own, and says
// at start that no other process will hear it.
func TestNATSWithoutASecretWarnsInDevelopment(t *testing.T) {
	url := natstest.Start(t).URL()
	for _, tc := range []struct {
		name string
		vars map[string]string
		want int
	}{
		{"no secret", map[string]string{}, 1},
		{"a secret", map[string]string{"TANDEM_BUS_SECRET": testBusSecret}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.vars["TANDEM_ENV"], tc.vars["TANDEM_BUS"] = "development", url+"?prefix=warn"
			logs := startLogs(t, tc.vars)
			warned := logs.FilterMessageSnippet("drops every other process's messages").
				FilterField(zap.String("variable", "TANDEM_BUS_SECRET"))
			if warned.Len() != tc.want {
				t.Fatalf("%d warnings, want %d: %v", warned.Len(), tc.want, logs.All())
			}
		})
	}
}

// TestPushToTheLogWarnsInProduction: production with TANDEM_PUSH unset
// (log) or naming no provider that delivers is one warning at start
// naming TANDEM_PUSH; `tandem config` shows the default taken, log.
func TestPushToTheLogWarnsInProduction(t *testing.T) {
	for _, tc := range []struct {
		name string
		vars map[string]string
		want int
	}{
		{"production, unset", map[string]string{"TANDEM_PUSH": ""}, 1},
		{"production, log", map[string]string{"TANDEM_PUSH": "log"}, 1},
		{"production, expo", map[string]string{"TANDEM_PUSH": "expo"}, 0},
		{"production, expo and log", map[string]string{"TANDEM_PUSH": "expo,log"}, 0},
		{"development, unset", map[string]string{"TANDEM_PUSH": "", "TANDEM_ENV": "development"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logs := startLogs(t, tc.vars)
			if got := logs.FilterMessageSnippet("delivers to no device").FilterField(zap.String("variable", "TANDEM_PUSH")).Len(); got != tc.want {
				t.Fatalf("%d warnings, want %d: %v", got, tc.want, logs.All())
			}
		})
	}
	var out strings.Builder
	if err := Run(context.Background(), []string{"config"}, env(map[string]string{"TANDEM_DB": "memory"}), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "\nTANDEM_PUSH=log\n") {
		t.Fatalf("tandem config does not show the push default:\n%s", out.String())
	}
}
