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
