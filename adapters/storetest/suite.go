package storetest

import (
	"context"
	"time"

	"tandem/core"
)

// Each contract is a suite: a type (its store constructor and constants)
// whose methods are its helpers and its subtests. Its exported function runs
// the subtests by name, each on a store of its own, so that no contract is
// one long function.

// ctx and now are every suite's context and fixed instant.
var (
	ctx = context.Background()
	now = time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)
)

// date parses a fixture's literal date; a typo in one is a bug in the suite.
func date(s string) core.Date {
	d, err := core.ParseDate(s)
	if err != nil {
		panic(err)
	}
	return d
}
