package admin_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"tandem/adapters/memory"
	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/admin"
)

// failingLog refuses every entry, as a database that is down would.
type failingLog struct{ admin.AuditLog }

func (failingLog) Append(context.Context, admin.Entry) error {
	return core.Unavailable("unavailable", "admin.down", "down")
}

// fixedStats answers the overview and remembers what it was asked.
type fixedStats struct{ now, since time.Time }

func (s *fixedStats) Overview(_ context.Context, now, since time.Time) (admin.Overview, error) {
	s.now, s.since = now, since
	return admin.Overview{Users: 7}, nil
}

var bossCtx = core.WithPrincipal(context.Background(), core.Principal{UserID: "u-boss", Email: "boss@x.io", Admin: true})

func TestApplyRecordsEveryChange(t *testing.T) {
	t.Parallel()
	type state struct{ Rollout int }
	cases := []struct {
		name        string
		ctx         context.Context
		log         func() admin.AuditLog
		apply       func(context.Context) (any, error)
		wantErr     core.Kind // 0: none
		wantRun     bool
		wantOutcome admin.Outcome // "": no entry
		wantAfter   string
	}{
		{name: "a change is recorded with its before and after", ctx: bossCtx, wantRun: true,
			apply:       func(context.Context) (any, error) { return state{Rollout: 50}, nil },
			wantOutcome: admin.OutcomeDone, wantAfter: `{"Rollout":50}`},
		{name: "a refused change is recorded as failed", ctx: bossCtx, wantRun: true, wantErr: core.KindInvalid,
			apply:       func(context.Context) (any, error) { return nil, core.Invalid("invalid_request", "admin.no", "no") },
			wantOutcome: admin.OutcomeFailed, wantAfter: "null"},
		{name: "no entry, no change", ctx: bossCtx, wantErr: core.KindUnavailable,
			log: func() admin.AuditLog { return failingLog{memory.NewAuditRepo()} }},
		{name: "only an administrator changes anything", ctx: core.WithPrincipal(context.Background(),
			core.Principal{UserID: "u-ann", Email: "ann@x.io"}), wantErr: core.KindForbidden},
		{name: "nor does an anonymous caller", ctx: context.Background(), wantErr: core.KindForbidden},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			repo := memory.NewAuditRepo()
			var log admin.AuditLog = repo
			if tc.log != nil {
				log = tc.log()
			}
			clock := coretest.NewClock(time.Time{})
			svc := admin.NewService(log, &fixedStats{}, clock, &coretest.SeqIDs{})
			ran := false
			err := svc.Apply(tc.ctx, admin.Change{Action: "flag.update", Target: "flag:k", Before: state{Rollout: 10}},
				func(ctx context.Context) (any, error) {
					ran = true
					if tc.apply == nil {
						return nil, nil
					}
					return tc.apply(ctx)
				})
			if tc.wantErr != 0 {
				if !core.IsKind(err, tc.wantErr) {
					t.Fatalf("err %v, want kind %v", err, tc.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if ran != tc.wantRun {
				t.Fatalf("ran %v", ran)
			}
			es, _, err := repo.List(context.Background(), core.Page{})
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantOutcome == "" {
				if len(es) != 0 {
					t.Fatalf("entries %+v", es)
				}
				return
			}
			want := admin.Entry{ID: "id-1", ActorID: "u-boss", Actor: "boss@x.io", Action: "flag.update", Target: "flag:k",
				Before: `{"Rollout":10}`, After: tc.wantAfter, Outcome: tc.wantOutcome, At: clock.Now()}
			if len(es) != 1 || es[0] != want {
				t.Fatalf("entries %+v, want %+v", es, want)
			}
		})
	}
}

func TestApplyWritesTheEntryBeforeTheChange(t *testing.T) {
	t.Parallel()
	repo := memory.NewAuditRepo()
	svc := admin.NewService(repo, &fixedStats{}, coretest.NewClock(time.Time{}), &coretest.SeqIDs{})
	err := svc.Apply(bossCtx, admin.Change{Action: "account.delete", Target: "user:u1"}, func(ctx context.Context) (any, error) {
		es, _, err := repo.List(ctx, core.Page{})
		if err != nil || len(es) != 1 || es[0].Outcome != admin.OutcomePending || es[0].Before != "null" {
			return nil, errors.Join(err, errors.New("no pending entry during the change"))
		}
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestApplyCutsLongStates(t *testing.T) {
	t.Parallel()
	repo := memory.NewAuditRepo()
	svc := admin.NewService(repo, &fixedStats{}, coretest.NewClock(time.Time{}), &coretest.SeqIDs{})
	big := strings.Repeat("é", admin.MaxState)
	if err := svc.Apply(bossCtx, admin.Change{Action: "x", Target: "y", Before: big}, func(context.Context) (any, error) {
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	es, _, _ := repo.List(context.Background(), core.Page{})
	if len(es) != 1 || len(es[0].Before) > admin.MaxState || !strings.HasPrefix(es[0].Before, `"éé`) ||
		strings.ToValidUTF8(es[0].Before, "?") != es[0].Before {
		t.Fatalf("before of %d bytes", len(es[0].Before))
	}
}

func TestOverviewCountsFromMidnightUTC(t *testing.T) {
	t.Parallel()
	stats := &fixedStats{}
	clock := coretest.NewClock(time.Date(2025, 6, 15, 23, 30, 0, 0, time.FixedZone("X", -5*3600)))
	svc := admin.NewService(memory.NewAuditRepo(), stats, clock, &coretest.SeqIDs{})
	o, err := svc.Overview(context.Background())
	if err != nil || o.Users != 7 {
		t.Fatalf("%+v %v", o, err)
	}
	if want := time.Date(2025, 6, 16, 0, 0, 0, 0, time.UTC); !stats.since.Equal(want) || !stats.now.Equal(clock.Now()) {
		t.Fatalf("since %v now %v", stats.since, stats.now)
	}
}

func TestApplyRecordsTheCommandLineAsItsActor(t *testing.T) {
	t.Parallel()
	repo := memory.NewAuditRepo()
	svc := admin.NewService(repo, &fixedStats{}, coretest.NewClock(time.Time{}), &coretest.SeqIDs{})
	if err := svc.Apply(admin.AsCLI(context.Background()), admin.Change{Action: "admin.grant", Target: "user:u1"},
		func(context.Context) (any, error) { return nil, nil }); err != nil {
		t.Fatal(err)
	}
	es, _, _ := repo.List(context.Background(), core.Page{})
	if len(es) != 1 || es[0].Actor != admin.CLIActor || es[0].ActorID != "" || es[0].Outcome != admin.OutcomeDone {
		t.Fatalf("entries %+v", es)
	}
}

func TestSignInFailedRecordsTheAttemptNotThePassword(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", admin.MaxField)
	cases := []struct {
		name       string
		failure    admin.SignInFailure
		wantTarget string
		wantAfter  string
	}{
		{name: "the e-mail as typed, the address and the reason",
			failure:    admin.SignInFailure{Email: " Boss@X.io ", IP: "203.0.113.9", Reason: "wrong_credentials"},
			wantTarget: "email: Boss@X.io ", wantAfter: `{"ip":"203.0.113.9","reason":"wrong_credentials"}`},
		{name: "a long e-mail is clipped on a character",
			failure:    admin.SignInFailure{Email: long, IP: "::1", Reason: "rate_limited"},
			wantTarget: "email:" + strings.Repeat("é", (admin.MaxField-len("email:"))/2), wantAfter: `{"ip":"::1","reason":"rate_limited"}`},
		{name: "bytes that are no UTF-8 are replaced",
			failure:    admin.SignInFailure{Email: "a\xffb@x.io", IP: "::1", Reason: "not_administrator"},
			wantTarget: "email:a\uFFFDb@x.io", wantAfter: `{"ip":"::1","reason":"not_administrator"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			repo := memory.NewAuditRepo()
			clock := coretest.NewClock(time.Time{})
			svc := admin.NewService(repo, &fixedStats{}, clock, &coretest.SeqIDs{})
			// No principal: nobody is signed in.
			if err := svc.SignInFailed(context.Background(), tc.failure); err != nil {
				t.Fatal(err)
			}
			es, _, _ := repo.List(context.Background(), core.Page{})
			want := admin.Entry{ID: "id-1", Actor: admin.Anonymous, Action: admin.ActionSignInFailed, Target: tc.wantTarget,
				Before: "null", After: tc.wantAfter, Outcome: admin.OutcomeFailed, At: clock.Now()}
			if len(es) != 1 || es[0] != want {
				t.Fatalf("entries %+v, want %+v", es, want)
			}
		})
	}
}
