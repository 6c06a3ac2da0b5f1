// Package storetest holds one contract suite per repository port; each suite
// runs against the memory, SQLite and MySQL implementations.
package storetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"tandem/core"
)

// Each contract is a suite: a type (its store constructor and constants)
// whose methods are its helpers and its subtests. Its exported function runs
// the subtests by name, each on a store of its own, so that no contract is
// one long function. A helper one suite uses is its method; one several
// suites use is a function here or beside the suite it comes from.

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

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantKind(t *testing.T, err error, k core.Kind) {
	t.Helper()
	if !core.IsKind(err, k) {
		t.Fatalf("want kind %v, got %v", k, err)
	}
}

func wantCode(t *testing.T, err error, k core.Kind, code string) {
	t.Helper()
	if !core.IsKind(err, k) || core.As(err).Code != code {
		t.Fatalf("want %v/%s, got %v", k, code, err)
	}
}

// race runs fns at the same instant (released together by a closed channel)
// and returns their errors in order.
func race(fns ...func() error) []error {
	errs := make([]error, len(fns))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, fn := range fns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = fn()
		}()
	}
	close(start)
	wg.Wait()
	return errs
}
