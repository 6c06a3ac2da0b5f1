package storetest

import (
	"sync"
	"testing"

	"tandem/core"
)

// concurrentlyAllowed runs try(0..n-1) at once and counts the calls that
// passed; a refusal must be the limit's (KindForbidden), nothing else.
func concurrentlyAllowed(t *testing.T, n int, try func(i int) error) int {
	t.Helper()
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = try(i)
		}()
	}
	wg.Wait()
	allowed := 0
	for _, err := range errs {
		switch {
		case err == nil:
			allowed++
		case core.IsKind(err, core.KindForbidden):
		default:
			t.Fatalf("unexpected error: %v", err)
		}
	}
	return allowed
}
