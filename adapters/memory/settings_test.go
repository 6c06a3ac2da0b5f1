package memory_test

import (
	"testing"

	"tandem/adapters/console"
	"tandem/adapters/memory"
	"tandem/adapters/storetest"
)

func TestSettings(t *testing.T) {
	storetest.Settings(t, func(*testing.T) console.Settings { return memory.NewSettingsRepo() })
}
