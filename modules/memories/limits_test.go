package memories_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/memories"
)

// maxMemories is a fake Limits: the limit set for a user, NoLimit for anyone
// else; err fails every call.
type maxMemories struct {
	mu  sync.Mutex
	m   map[string]int
	err error
}

func (l *maxMemories) MaxMemories(_ context.Context, userID string) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return 0, l.err
	}
	if n, ok := l.m[userID]; ok {
		return n, nil
	}
	return memories.NoLimit, nil
}

func (l *maxMemories) set(userID string, n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = map[string]int{}
	}
	l.m[userID] = n
}

// limited is a service on the fixture's stores with limits in place (its
// own ids: use it alone for creates).
func limited(f *fixture, limits *maxMemories) *memories.Service {
	return memories.NewService(f.repo, f.partners, f.notes, limits, settings, f.bus, limiter(f.clock), f.clock, &coretest.SeqIDs{})
}

func TestCreateStopsAtTheMemoryLimit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	draft := memories.Draft{Title: "Beach", Date: "2025-06-01"}
	for _, tc := range []struct {
		name    string
		limit   int
		stored  int
		message string // "" when the next create fits
	}{
		{"below the limit", 3, 2, ""},
		{"at the limit", 3, 3, "memory limit reached: 3 memories"},
		{"one memory", 1, 1, "memory limit reached: 1 memory"},
		{"zero allows none", 0, 0, "memory limit reached: 0 memories"},
		{"no limit configured", memories.NoLimit, 5, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f, limits := newFixture(t), &maxMemories{}
			svc := limited(f, limits)
			for i := range tc.stored {
				if _, err := svc.Create(ctx, "me", memories.Draft{Title: fmt.Sprint(i), Date: "2025-06-01"}); err != nil {
					t.Fatal(err)
				}
			}
			f.partners.Pair("me", "partner")
			limits.set("me", tc.limit)
			_, err := svc.Create(ctx, "me", draft)
			if tc.message == "" {
				if err != nil || len(f.stored(t, "me")) != tc.stored+1 {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			coretest.WantErr(t, err, core.KindForbidden, memories.CodeLimitReached)
			if core.As(err).Message != tc.message {
				t.Fatalf("message %q", core.As(err).Message)
			}
			if n := len(f.stored(t, "me")); n != tc.stored {
				t.Fatalf("stored %d after a refusal", n)
			}
			if len(f.notes.all()) != 0 {
				t.Fatalf("the partner heard of a refused memory: %v", f.notes.all())
			}
		})
	}
}

func TestTheMemoryLimitIsPerUserAndFollowsThePremiumState(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	limits := &maxMemories{}
	limits.set("me", 2)
	limits.set("other", 2)
	svc := limited(f, limits)
	draft := memories.Draft{Title: "Beach", Date: "2025-06-01"}
	create := func(user string) error { _, err := svc.Create(ctx, user, draft); return err }

	for _, step := range []struct {
		name string
		do   func() error
		want string // "" or the code of the refusal
	}{
		{"first", func() error { return create("me") }, ""},
		{"second", func() error { return create("me") }, ""},
		{"third is over", func() error { return create("me") }, memories.CodeLimitReached},
		{"another user's count is theirs", func() error { return create("other") }, ""},
		{"an invalid draft is a 400 first", func() error {
			_, err := svc.Create(ctx, "me", memories.Draft{Date: "2025-06-01"})
			return err
		}, "invalid_request"},
		{"a deleted memory frees its place", func() error {
			if err := svc.Delete(ctx, "me", f.stored(t, "me")[0].ID); err != nil {
				return err
			}
			return create("me")
		}, ""},
		{"full again", func() error { return create("me") }, memories.CodeLimitReached},
		{"premium raises the limit", func() error { limits.set("me", 3); return create("me") }, ""},
	} {
		err := step.do()
		if (step.want == "") != (err == nil) || (err != nil && core.As(err).Code != step.want) {
			t.Fatalf("%s: %v", step.name, err)
		}
	}
	if me, other := len(f.stored(t, "me")), len(f.stored(t, "other")); me != 3 || other != 1 {
		t.Fatalf("stored %d and %d", me, other)
	}
}

func TestAFailedLimitLookupWritesNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	broken := errors.New("database on fire")
	svc := limited(f, &maxMemories{err: core.Internal(broken)})
	_, err := svc.Create(context.Background(), "me", memories.Draft{Title: "Beach", Date: "2025-06-01"})
	if !errors.Is(err, broken) || len(f.stored(t, "me")) != 0 {
		t.Fatalf("got %v, stored %d", err, len(f.stored(t, "me")))
	}
}

func TestConcurrentCreatesAtTheLimitEndAtTheLimit(t *testing.T) {
	t.Parallel()
	f, limits := newFixture(t), &maxMemories{}
	svc := limited(f, limits)
	if _, err := svc.Create(context.Background(), "me", memories.Draft{Title: "First", Date: "2025-06-01"}); err != nil {
		t.Fatal(err)
	}
	limits.set("me", 4)
	const tries = 16
	var wg sync.WaitGroup
	errs := make([]error, tries)
	for i := range tries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = svc.Create(context.Background(), "me", memories.Draft{Title: "Beach", Date: "2025-06-01"})
		}()
	}
	wg.Wait()
	refused := 0
	for _, err := range errs {
		if err != nil {
			coretest.WantErr(t, err, core.KindForbidden, memories.CodeLimitReached)
			refused++
		}
	}
	if n := len(f.stored(t, "me")); n != 4 || refused != tries-3 {
		t.Fatalf("stored %d, refused %d", n, refused)
	}
}
