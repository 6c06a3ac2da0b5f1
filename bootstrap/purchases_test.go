package bootstrap

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.uber.org/fx"
)

func TestLoadPurchases(t *testing.T) {
	dev, prod := "development", "production"
	cases := []struct {
		env, value string
		want       PurchasesConfig
		err        string // a fragment of the one TANDEM_PURCHASES line; "" when accepted
	}{
		{dev, "", PurchasesConfig{Trust: true}, ""},
		{prod, "", PurchasesConfig{}, ""}, // serve refuses; migrate and backup need none
		{prod, "trust", PurchasesConfig{}, "needs TANDEM_ENV=development"},
		{dev, "appstore?bundle=com.example.app", PurchasesConfig{AppStore: &AppStoreConfig{Bundle: "com.example.app",
			Env: "Production", Plans: map[string]string{}}}, ""},
		{prod, "appstore?bundle=com.example.app&env=Sandbox&plan.com.example.monthly=9.99,trust", PurchasesConfig{},
			"needs TANDEM_ENV=development"},
		{dev, "appstore?bundle=b&env=Sandbox&plan.m=9.99, trust", PurchasesConfig{Trust: true, AppStore: &AppStoreConfig{
			Bundle: "b", Env: "Sandbox", Plans: map[string]string{"m": "9.99"}}}, ""},
		{prod, "appstore?bundle=b&root=/tmp/root.pem", PurchasesConfig{}, "root= replaces Apple's root"},
		{prod, "appstore?env=Production", PurchasesConfig{}, "needs bundle="},
		{prod, "appstore?bundle=b&env=prod", PurchasesConfig{}, "is not Production or Sandbox"},
		{prod, "appstore?bundle=b&bundel=c", PurchasesConfig{}, `no parameter "bundel"`},
		{prod, "play?package=p&credentials=/k.json&secret=s", PurchasesConfig{Play: &PlayConfig{Package: "p",
			CredentialsFile: "/k.json", Plans: map[string]string{}, Secret: "s"}}, ""},
		{prod, "play?package=p&credentials=/k.json", PurchasesConfig{}, "secret=S"},
		{prod, "play?package=p&credentials=/k.json&audience=https://x.test/hook&email=push@p.iam.gserviceaccount.com",
			PurchasesConfig{Play: &PlayConfig{Package: "p", CredentialsFile: "/k.json", Plans: map[string]string{},
				Audience: "https://x.test/hook", Email: "push@p.iam.gserviceaccount.com"}}, ""},
		{prod, "play?package=p&credentials=/k.json&audience=https://x.test/hook", PurchasesConfig{}, "audience= needs email="},
		{prod, "play?package=p&credentials=/k.json&secret=s&audience=https://x.test/hook", PurchasesConfig{},
			"audience= needs email="},
		{prod, "play?package=p&secret=s", PurchasesConfig{}, "credentials=FILE"},
		{prod, "appstore?bundle=a,appstore?bundle=b", PurchasesConfig{}, "listed twice"},
		{prod, "apple", PurchasesConfig{}, "is not trust"},
	}
	for _, c := range cases {
		t.Run(c.env+" "+c.value, func(t *testing.T) {
			cfg, err := Load(env(map[string]string{"TANDEM_ENV": c.env, "TANDEM_PURCHASES": c.value}))
			if c.err != "" {
				if err == nil || strings.Contains(err.Error(), "\n") ||
					!strings.HasPrefix(err.Error(), "TANDEM_PURCHASES: ") || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("want one TANDEM_PURCHASES line with %q, got %v", c.err, err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(cfg.Purchases, c.want) {
				t.Fatalf("got %+v (%v), want %+v", cfg.Purchases, err, c.want)
			}
		})
	}
}

// TestServeRefusesUnverifiedPremiumInProduction: no verifier configured in
// production is a start-up error naming the variable, not trust.
func TestServeRefusesUnverifiedPremiumInProduction(t *testing.T) {
	vars := map[string]string{"TANDEM_DB": "memory", "TANDEM_BLOBS": "memory", "TANDEM_ADDR": "127.0.0.1:0"}
	err := Run(context.Background(), []string{"serve"}, env(vars), io.Discard)
	if err == nil || !strings.Contains(err.Error(), "TANDEM_PURCHASES: list appstore?bundle=ID") {
		t.Fatalf("started without a purchase verifier: %v", err)
	}
	cfg, err := Load(env(vars))
	if err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "none.json")
	cfg.Purchases = PurchasesConfig{Play: &PlayConfig{Package: "p", CredentialsFile: missing, Secret: "s"}}
	err = fx.ValidateApp(Options(cfg))
	if err == nil || !strings.Contains(err.Error(), "play credentials") {
		t.Fatalf("started without its credentials file: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "root.pem")
	if err := os.WriteFile(bad, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg.Purchases = PurchasesConfig{AppStore: &AppStoreConfig{Bundle: "b", Env: "Production", RootFile: bad}}
	err = fx.ValidateApp(Options(cfg))
	if err == nil || !strings.Contains(err.Error(), "holds no PEM certificate") {
		t.Fatalf("started with a bad root: %v", err)
	}
}
