package bootstrap

import (
	"path/filepath"
	"testing"

	"go.uber.org/fx"
)

// TestAppGraphIsValidForEveryProfile checks the fx graph of each adapter
// choice without running any constructor.
func TestAppGraphIsValidForEveryProfile(t *testing.T) {
	profiles := map[string]map[string]string{
		"memory": {"TANDEM_DB": "memory", "TANDEM_BLOBS": "memory", "TANDEM_MAIL": "memory", "TANDEM_PUSH": "memory"},
		"sqlite": {"TANDEM_DB": "sqlite:" + filepath.Join(t.TempDir(), "t.db")},
		"mysql":  {"TANDEM_DB": "mysql:root@tcp(127.0.0.1:3306)/test"},
		"smtp":   {"TANDEM_DB": "memory", "TANDEM_MAIL": "smtp://127.0.0.1:2525"},
		"s3":     {"TANDEM_DB": "memory", "TANDEM_BLOBS": "s3://b?endpoint=127.0.0.1:9000&secure=false"},
		"push":   {"TANDEM_DB": "memory", "TANDEM_PUSH": "expo,fcm?project=p&credentials=/k.json"},
	}
	for name, vars := range profiles {
		t.Run(name, func(t *testing.T) {
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
