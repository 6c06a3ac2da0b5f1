package storetest

import (
	"context"
	"time"

	"tandem/core"
)

// ctx and now are every suite's context and fixed instant. Each suite is a
// type whose methods are its subtests: its entry function runs them by name
// on a fresh store each, so no contract is one long function.
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
