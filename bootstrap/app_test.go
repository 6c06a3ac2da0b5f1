package bootstrap

import (
	"path/filepath"
	"testing"

	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"tandem/adapters/signin/signintest"
)

// TestAppGraphIsValidForEveryProfile checks the fx graph of each adapter
// choice without running any constructor.
func TestAppGraphIsValidForEveryProfile(t *testing.T) {
	_, keyfile := signintest.NewTeamKey(t)
	profiles := map[string]map[string]string{
		"memory": {"TANDEM_DB": "memory", "TANDEM_BLOBS": "memory", "TANDEM_MAIL": "memory", "TANDEM_PUSH": "memory"},
		"sqlite": {"TANDEM_DB": "sqlite:" + filepath.Join(t.TempDir(), "t.db")},
		"mysql":  {"TANDEM_DB": "mysql:root@tcp(127.0.0.1:3306)/test"},
		"smtp":   {"TANDEM_DB": "memory", "TANDEM_MAIL": "smtp://127.0.0.1:2525"},
		"s3":     {"TANDEM_DB": "memory", "TANDEM_BLOBS": "s3://b?endpoint=127.0.0.1:9000&secure=false"},
		"push":   {"TANDEM_DB": "memory", "TANDEM_PUSH": "expo,fcm?project=p&credentials=/k.json"},
		"passkeys": {"TANDEM_DB": "memory", "TANDEM_PASSKEYS": "rp=example.com&origin=https://example.com",
			"TANDEM_APPLE_APP_IDS": "ABCDE12345.app.tandem"},
		"sign in with apple and its revocation": {"TANDEM_DB": "memory",
			"TANDEM_SIGNIN":         "apple?client=com.example.tandem&team=ABCDE12345&key=KEY1234567&keyfile=" + keyfile,
			"TANDEM_ENCRYPTION_KEY": "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="},
	}
	for name, vars := range profiles {
		t.Run(name, func(t *testing.T) {
			vars["TANDEM_ENV"] = "development"
			cfg, err := Load(env(vars))
			if err != nil {
				t.Fatal(err)
			}
			if err := fx.ValidateApp(Options(cfg)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestTrustedPurchasesWarnAtStart: with TANDEM_PURCHASES=trust every start
// logs a warning that clients grant themselves premium.
func TestTrustedPurchasesWarnAtStart(t *testing.T) {
	cfg, err := Load(env(map[string]string{"TANDEM_DB": "memory", "TANDEM_BLOBS": "memory", "TANDEM_MAIL": "memory",
		"TANDEM_PUSH": "memory", "TANDEM_ADDR": "127.0.0.1:0", "TANDEM_METRICS_ADDR": "", "TANDEM_PURCHASES": "trust",
		"TANDEM_ENV": "development"}))
	if err != nil {
		t.Fatal(err)
	}
	obs, logs := observer.New(zapcore.InfoLevel)
	app := fxtest.New(t, Options(cfg), fx.Decorate(func() *zap.Logger { return zap.New(obs) }))
	if logs.FilterMessageSnippet("premium").Len() != 0 {
		t.Fatal("warned before the start")
	}
	app.RequireStart()
	defer app.RequireStop()
	warned := logs.FilterLevelExact(zapcore.WarnLevel).FilterMessageSnippet("any client can grant itself premium").
		FilterField(zap.String("variable", "TANDEM_PURCHASES"))
	if warned.Len() != 1 {
		t.Fatalf("want one warning, got %v", logs.All())
	}
}
