package memory_test

import (
	"testing"

	"tandem/adapters/memory"
	"tandem/adapters/storetest"
	"tandem/modules/accounts"
	"tandem/modules/throttle"
)

func TestThrottleRepository(t *testing.T) {
	storetest.ThrottleRepository(t, func(*testing.T) throttle.Repository { return memory.NewThrottleRepo() })
}

func TestAccountRepository(t *testing.T) {
	storetest.AccountRepository(t, func(*testing.T) accounts.Repository { return memory.NewAccountRepo() })
}
