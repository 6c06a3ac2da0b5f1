package sqlstore_test

import (
	"os"
	"testing"

	"tandem/adapters/sqlstore/sqltest"
)

func TestMain(m *testing.M) { os.Exit(sqltest.Run(m)) }
