// This file holds the tests of the limit on failed code attempts (link,
// submit-code, create), per user and per client IP, concurrent guesses
// included.

package partners_test

import (
	"fmt"
	"sync"
	"testing"

	"tandem/adapters/memory"
	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/partners"
)

// attemptFlow is one of the three code routes with a wrong and a right attempt.
type attemptFlow struct {
	name string
	// arrange gives "owner" a code and returns it; wrong is an attempt that
	// fails (the i-th, so each guess differs) and its error.
	arrange func(t *testing.T, f *fixture) string
	attempt func(f *fixture, user, code, ip string) error
	wrong   func(i int) string
	missed  func(t *testing.T, err error)
}

var attemptFlows = []attemptFlow{
	{name: "link",
		arrange: func(t *testing.T, f *fixture) string {
			if _, err := f.create("owner", "zq7w-owner-code-1"); err != nil {
				t.Fatal(err)
			}
			return "zq7w-owner-code-1"
		},
		attempt: func(f *fixture, user, code, ip string) error { _, err := f.svc.Link(ctx, user, code, ip); return err },
		wrong:   func(i int) string { return fmt.Sprintf("zq7w-guess-%04d", i) },
		missed:  func(t *testing.T, err error) { coretest.WantErr(t, err, core.KindNotFound, "not_found") }},
	{name: "submit-code",
		arrange: func(t *testing.T, f *fixture) string { return f.code(t, "owner") },
		attempt: func(f *fixture, user, code, ip string) error {
			_, err := f.svc.SubmitCode(ctx, user, code, ip)
			return err
		},
		wrong: func(i int) string {
			const abc = partners.PairingCodeAlphabet
			return "ZZ" + string(abc[i/len(abc)%len(abc)]) + string(abc[i%len(abc)]) + "ZZ"
		},
		missed: func(t *testing.T, err error) { coretest.WantErr(t, err, core.KindInvalid, "invalid_pairing_code") }},
	{name: "create (a taken code)",
		arrange: func(t *testing.T, f *fixture) string {
			for i := range 50 { // codes the guesser will find taken, each created from its holder's own IP
				holder, holderIP := fmt.Sprintf("holder-%d", i), fmt.Sprintf("198.51.100.%d", i)
				if _, err := f.svc.CreateConnection(ctx, holder, fmt.Sprintf("zq7w-guess-%04d", i), holderIP); err != nil {
					t.Fatal(err)
				}
			}
			return "zq7w-free-code-1"
		},
		attempt: func(f *fixture, user, code, ip string) error {
			_, err := f.svc.CreateConnection(ctx, user, code, ip)
			return err
		},
		wrong:  func(i int) string { return fmt.Sprintf("zq7w-guess-%04d", i) },
		missed: func(t *testing.T, err error) { coretest.WantErr(t, err, core.KindConflict, "conflict") }},
}

func wantLimited(t *testing.T, err error) {
	t.Helper()
	e := core.As(err)
	if err == nil || e.Kind != core.KindRateLimited || e.Code != "rate_limited" || e.RetryAfter <= 0 {
		t.Fatalf("want 429 rate_limited with Retry-After, got %v", err)
	}
}

// TestFailedCodeAttemptsAreLimited: per user and per client IP, failed
// attempts stop at the limit, the right code included; answers that name
// another user's code give the attempt back; the window ends.
func TestFailedCodeAttemptsAreLimited(t *testing.T) {
	t.Parallel()
	limits := partners.Settings{FailsPerUser: 3, FailsPerIP: 5}
	for _, fl := range attemptFlows {
		t.Run(fl.name, func(t *testing.T) {
			repo := memory.NewPartnerRepo()
			f := newFixtureWith(repo, repo, limits)
			right := fl.arrange(t, f)
			const ip, otherIP = "203.0.113.1", "203.0.113.2"
			for i := range 3 {
				fl.missed(t, fl.attempt(f, "x", fl.wrong(i), ip))
			}
			wantLimited(t, fl.attempt(f, "x", fl.wrong(3), ip))
			wantLimited(t, fl.attempt(f, "x", right, otherIP)) // the user is spent from any IP, right code or not
			if s := f.status(t, "owner"); s.State != partners.StateUnpaired || f.partner(t, "x") != "" {
				t.Fatalf("owner %+v", s)
			}
			if len(f.notes.all()) != 0 || len(facts(f.bus)) != 0 {
				t.Fatal("a refused attempt left a trace")
			}

			// the IP: x's 3 failures count, the refused ones do not
			fl.missed(t, fl.attempt(f, "y", fl.wrong(10), ip))
			fl.missed(t, fl.attempt(f, "y", fl.wrong(11), ip))
			wantLimited(t, fl.attempt(f, "y", fl.wrong(12), ip))
			// y's attempt refused by the IP is not counted against y: 2 of 3 spent
			if err := fl.attempt(f, "y", right, otherIP); err != nil {
				t.Fatalf("y from another IP: %v", err)
			}

			f.clock.Advance(partners.FailWindow)
			fl.missed(t, fl.attempt(f, "x", fl.wrong(20), ip))
		})
	}

	t.Run("another user's code gives the attempt back", func(t *testing.T) {
		repo := memory.NewPartnerRepo()
		f := newFixtureWith(repo, repo, limits)
		f.link(t, "a", "b")
		cc := f.code(t, "c")
		for range 10 {
			_, err := f.linkWith("x", "zq7w-conn-code-a")
			coretest.WantErr(t, err, core.KindConflict, "already_paired")
			if _, err := f.submit("x", cc); err != nil {
				t.Fatal(err)
			}
		}
		_, err := f.linkWith("x", "nobody-has-it")
		coretest.WantErr(t, err, core.KindNotFound, "not_found")
	})

	t.Run("every create counts: a free code is a probe too", func(t *testing.T) {
		repo := memory.NewPartnerRepo()
		f := newFixtureWith(repo, repo, limits)
		for i := range 3 {
			if _, err := f.create("x", fmt.Sprintf("zq7w-free-code-%d", i)); err != nil {
				t.Fatal(err)
			}
		}
		_, err := f.create("x", "zq7w-free-code-3")
		wantLimited(t, err)
		if got, err := repo.ConnectionOf(ctx, "x"); err != nil || got.Code != "zq7w-free-code-2" {
			t.Fatalf("stored %+v, %v", got, err)
		}
	})

	t.Run("checks that need no lookup come first and are not counted", func(t *testing.T) {
		repo := memory.NewPartnerRepo()
		f := newFixtureWith(repo, repo, limits)
		f.link(t, "a", "b")
		for range 10 {
			_, err := f.linkWith("x", "x")
			coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
			_, err = f.submit("x", "not a code")
			coretest.WantErr(t, err, core.KindInvalid, "invalid_pairing_code")
			_, err = f.create("x", "short")
			coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
			_, err = f.create("x", "password") // too easy to guess: says nothing of others' codes
			coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
			_, err = f.linkWith("b", "nobody-has-it")
			coretest.WantErr(t, err, core.KindConflict, "already_paired")
		}
		_, err := f.linkWith("x", "nobody-has-it")
		coretest.WantErr(t, err, core.KindNotFound, "not_found")
	})
}

// TestConcurrentGuessesStopAtTheLimit: the attempt is reserved before the
// lookup, so a burst cannot pass the limit.
func TestConcurrentGuessesStopAtTheLimit(t *testing.T) {
	t.Parallel()
	repo := memory.NewPartnerRepo()
	f := newFixtureWith(repo, repo, partners.Settings{FailsPerUser: 10, FailsPerIP: 30})
	errs := make([]error, 30)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = f.linkWith("x", fmt.Sprintf("zq7w-guess-%04d", i))
		}()
	}
	wg.Wait()
	missed := 0
	for _, err := range errs {
		if !core.IsKind(err, core.KindRateLimited) {
			coretest.WantErr(t, err, core.KindNotFound, "not_found")
			missed++
		}
	}
	if missed != 10 {
		t.Fatalf("%d guesses answered, want 10", missed)
	}
}
