package memory_test

import (
	"testing"

	"tandem/adapters/memory"
	"tandem/adapters/storetest"
	"tandem/core"
)

func TestSettings(t *testing.T) {
	storetest.Settings(t, func(*testing.T) core.Settings { return memory.NewSettingsRepo() })
}
