package core_test

import (
	"context"
	"errors"
	"testing"

	"tandem/core"
)

func TestMemoAsksOncePerKeyOnlyWithAMemo(t *testing.T) {
	t.Parallel()
	asked := 0
	read := func() (int, error) { asked++; return asked, nil }
	plain := context.Background()
	core.Memo(plain, "k", read)
	core.Memo(plain, "k", read)
	if asked != 2 {
		t.Fatalf("without a memo: asked %d times, want 2", asked)
	}
	ctx := core.WithReadMemo(plain)
	a, _ := core.Memo(ctx, "k", read)
	b, _ := core.Memo(ctx, "k", read)
	c, _ := core.Memo(ctx, "other", read)
	if a != 3 || b != 3 || c != 4 || asked != 4 {
		t.Fatalf("with a memo: %d %d %d, asked %d", a, b, c, asked)
	}
	boom := errors.New("boom")
	failing := func() (string, error) { asked++; return "", boom }
	if _, err := core.Memo(ctx, "e", failing); !errors.Is(err, boom) {
		t.Fatal(err)
	}
	if _, err := core.Memo(ctx, "e", failing); !errors.Is(err, boom) || asked != 5 {
		t.Fatalf("an error is remembered: %v, asked %d", err, asked)
	}
	if _, err := core.Memo(core.WithReadMemo(plain), "k", read); err != nil || asked != 6 {
		t.Fatal("a new request has a new memo")
	}
}

func TestRememberAnswersLaterReadsOnlyWithAMemo(t *testing.T) {
	t.Parallel()
	asked := 0
	read := func() (string, error) { asked++; return "read", nil }
	plain := context.Background()
	core.Remember(plain, "k", "primed", nil)
	if v, _ := core.Memo(plain, "k", read); v != "read" || core.Memoized(plain) {
		t.Fatalf("without a memo Remember keeps nothing: %q", v)
	}
	ctx := core.WithReadMemo(plain)
	gone := errors.New("gone")
	core.Remember(ctx, "k", "primed", nil)
	core.Remember(ctx, "missing", "", gone)
	if v, err := core.Memo(ctx, "k", read); v != "primed" || err != nil || !core.Memoized(ctx) {
		t.Fatalf("primed answer: %q %v", v, err)
	}
	if _, err := core.Memo(ctx, "missing", read); !errors.Is(err, gone) {
		t.Fatalf("primed error: %v", err)
	}
	if asked != 1 {
		t.Fatalf("asked %d times, want 1 (the read without a memo)", asked)
	}
}
