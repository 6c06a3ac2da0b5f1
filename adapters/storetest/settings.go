package storetest

import (
	"context"
	"strings"
	"testing"

	"tandem/core"
)

// Settings checks a core.Settings implementation: the first value
// stored under a name is the one every later call, and every concurrent
// one, gets back.
func Settings(t *testing.T, newRepo func(t *testing.T) core.Settings) {
	ctx := context.Background()

	t.Run("the first value stays; names are apart", func(t *testing.T) {
		r := newRepo(t)
		first := "Zm9v-" + strings.Repeat("x", 300) + "ü💬"
		for _, try := range []string{first, "other", first} {
			got, err := r.Ensure(ctx, "console_secret", try)
			must(t, err)
			if got != first {
				t.Fatalf("Ensure(%q) = %q, want the first value", try, got)
			}
		}
		got, err := r.Ensure(ctx, "another", "b")
		must(t, err)
		if got != "b" {
			t.Fatalf("another name: %q", got)
		}
	})

	t.Run("callers racing on an empty store agree on one of their values", func(t *testing.T) {
		r := newRepo(t)
		const n = 8
		got := make([]string, n)
		errs := make([]error, n)
		done := make(chan int)
		for i := range n {
			go func() {
				got[i], errs[i] = r.Ensure(ctx, "console_secret", "value-"+string(rune('a'+i)))
				done <- i
			}()
		}
		for range n {
			<-done
		}
		for i := range n {
			must(t, errs[i])
			if got[i] != got[0] || !strings.HasPrefix(got[0], "value-") {
				t.Fatalf("callers got %q", got)
			}
		}
	})
}
