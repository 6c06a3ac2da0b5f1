package sqlstore_test

import (
	"fmt"
	"os"
	"testing"

	"tandem/adapters/sqlstore/sqltest"
)

func TestMain(m *testing.M) {
	code := sqltest.Run(m)
	if n := explainedLarge.Load(); n > 0 { // make explain-scale
		fmt.Printf("statements EXPLAINed on the large set(s): %d\n", n)
	}
	os.Exit(code)
}
