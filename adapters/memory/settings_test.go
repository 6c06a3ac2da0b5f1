package memory_test

import (
	"testing"

	"tandem/adapters/httpapi"
	"tandem/adapters/memory"
	"tandem/adapters/storetest"
)

func TestSettings(t *testing.T) {
	storetest.Settings(t, func(*testing.T) httpapi.Settings { return memory.NewSettingsRepo() })
}
