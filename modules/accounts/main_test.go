package accounts_test

import (
	"os"
	"testing"

	"tandem/adapters/sqlstore/sqltest"
)

// The benchmarks' databases come from sqltest.
func TestMain(m *testing.M) { os.Exit(sqltest.Run(m)) }
