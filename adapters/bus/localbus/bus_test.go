package localbus_test

import (
	"testing"

	"tandem/adapters/bus/bustest"
	"tandem/adapters/bus/localbus"
	"tandem/core"
)

func TestLocalBus(t *testing.T) {
	t.Parallel()
	bustest.Broadcast(t, func(*testing.T) (core.Broadcast, core.Broadcast) {
		b := localbus.New()
		return b, b
	})
}
