package admin_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"tandem/adapters/memory"
	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/admin"
)

// thing stands for any module's state (a flag, a policy, a message); its
// record is itself.
type thing struct {
	Key string `json:"key"`
	N   int    `json:"n"`
}

func record(t thing) any { return t }

// things is a recording fake of FlagWrites, PolicyWrites and FeedbackWrites:
// keys starting with "bad" are malformed, and a read of "down" fails as a
// database that is down would.
type things struct {
	m      map[string]thing
	writes []string
}

func newThings(ts ...thing) *things {
	s := &things{m: map[string]thing{}}
	for _, t := range ts {
		s.m[t.Key] = t
	}
	return s
}

func (s *things) Get(_ context.Context, key string) (thing, error) {
	switch t, ok := s.m[key]; {
	case key == "down":
		return thing{}, core.Unavailable("unavailable", "admin.down", "down")
	case strings.HasPrefix(key, "bad"):
		return thing{}, core.Invalid("invalid_request", "admin.badKey", "bad key")
	case !ok:
		return thing{}, core.NotFound("not_found", "admin.noSuchThing", "no such thing")
	default:
		return t, nil
	}
}

func (s *things) put(key string, n int) (thing, error) {
	s.writes = append(s.writes, key)
	if _, err := s.Get(context.Background(), key); err != nil {
		return thing{}, err
	}
	s.m[key] = thing{Key: key, N: n}
	return s.m[key], nil
}

func (s *things) Create(_ context.Context, d thing) (thing, error) {
	if _, ok := s.m[d.Key]; ok {
		return thing{}, core.Conflict("conflict", "admin.exists", "exists")
	}
	s.m[d.Key] = d
	s.writes = append(s.writes, d.Key)
	return d, nil
}

func (s *things) Toggle(_ context.Context, key string, on *bool) (thing, error) {
	if on == nil {
		s.writes = append(s.writes, key)
		return thing{}, core.Invalid("invalid_request", "admin.isEnabledRequired", "isEnabled is required")
	}
	return s.put(key, map[bool]int{false: 0, true: 1}[*on])
}

func (s *things) Update(_ context.Context, key string, n int) (thing, error) { return s.put(key, n) }

func (s *things) Delete(_ context.Context, key string) error {
	if _, err := s.put(key, 0); err != nil {
		return err
	}
	delete(s.m, key)
	return nil
}

func (s *things) Policy(ctx context.Context, platform string) (thing, error) {
	return s.Get(ctx, platform)
}

func (s *things) SetPolicy(_ context.Context, platform string, d thing) (thing, error) {
	if strings.HasPrefix(platform, "bad") {
		return thing{}, core.Invalid("invalid_request", "admin.badPlatform", "bad platform")
	}
	s.writes = append(s.writes, platform)
	s.m[platform] = thing{Key: platform, N: d.N}
	return s.m[platform], nil
}

func (s *things) MarkHandled(_ context.Context, id, by string) (thing, error) {
	s.writes = append(s.writes, id+" by "+by)
	t := s.m[id]
	t.N++
	s.m[id] = t
	return t, nil
}

// entries is the log oldest first, each as "action target outcome before after".
func entries(t *testing.T, repo *memory.AuditRepo) []string {
	t.Helper()
	es, _, err := repo.List(context.Background(), core.Page{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, e := range slices.Backward(es) {
		if e.Actor != "boss@x.io" || e.ActorID != "u-boss" {
			t.Errorf("entry by %q (%q)", e.Actor, e.ActorID)
		}
		out = append(out, strings.Join([]string{e.Action, e.Target, string(e.Outcome), e.Before, e.After}, " "))
	}
	return out
}

// expectOutcome checks a change's error (wantKind 0: none) and that the
// log holds wantEntry alone ("": nothing).
func expectOutcome(t *testing.T, err error, wantKind core.Kind, repo *memory.AuditRepo, wantEntry string) {
	t.Helper()
	if wantKind == 0 && err != nil || wantKind != 0 && !core.IsKind(err, wantKind) {
		t.Fatalf("err %v, want kind %v", err, wantKind)
	}
	want := []string{}
	if wantEntry != "" {
		want = append(want, wantEntry)
	}
	if got := entries(t, repo); !slices.Equal(got, want) {
		t.Fatalf("entries %q, want %q", got, want)
	}
}

func newLog() (*admin.Service, *memory.AuditRepo) {
	repo := memory.NewAuditRepo()
	clock := coretest.NewClock(time.Time{})
	return admin.NewService(repo, &fixedStats{}, clock, &coretest.SeqIDs{}), repo
}

var annCtx = core.WithPrincipal(context.Background(), core.Principal{UserID: "u-ann", Email: "ann@x.io"})

func TestAuditedFlagsRecordEveryWrite(t *testing.T) {
	t.Parallel()
	on, off := true, false
	cases := []struct {
		name       string
		ctx        context.Context
		write      func(ctx context.Context, a *admin.AuditedFlags[thing, thing, int]) error
		wantKind   core.Kind // 0: none
		wantEntry  string    // "": no entry
		wantWrites int
	}{
		{name: "create: nothing before, the flag after",
			write: func(ctx context.Context, a *admin.AuditedFlags[thing, thing, int]) error {
				_, err := a.Create(ctx, thing{Key: " new ", N: 5})
				return err
			},
			wantEntry: `flag.create flag:new done null {"key":" new ","n":5}`, wantWrites: 1},
		{name: "a refused create is recorded as failed",
			write: func(ctx context.Context, a *admin.AuditedFlags[thing, thing, int]) error {
				_, err := a.Create(ctx, thing{Key: "dark"})
				return err
			},
			wantKind: core.KindConflict, wantEntry: `flag.create flag:dark failed null null`},
		{name: "toggle: the flag before and after",
			write: func(ctx context.Context, a *admin.AuditedFlags[thing, thing, int]) error {
				_, err := a.Toggle(ctx, "dark", &on)
				return err
			},
			wantEntry: `flag.toggle flag:dark done {"key":"dark","n":7} {"key":"dark","n":1}`, wantWrites: 1},
		{name: "update",
			write: func(ctx context.Context, a *admin.AuditedFlags[thing, thing, int]) error {
				_, err := a.Update(ctx, "dark", 25)
				return err
			},
			wantEntry: `flag.update flag:dark done {"key":"dark","n":7} {"key":"dark","n":25}`, wantWrites: 1},
		{name: "delete: nothing after",
			write: func(ctx context.Context, a *admin.AuditedFlags[thing, thing, int]) error {
				return a.Delete(ctx, "dark")
			},
			wantEntry: `flag.delete flag:dark done {"key":"dark","n":7} null`, wantWrites: 1},
		{name: "an unknown flag: nothing before, the write answers and is on record",
			write: func(ctx context.Context, a *admin.AuditedFlags[thing, thing, int]) error {
				_, err := a.Toggle(ctx, "nope", &off)
				return err
			},
			wantKind: core.KindNotFound, wantEntry: `flag.toggle flag:nope failed null null`, wantWrites: 1},
		{name: "the write's own error comes first, even for an unknown flag",
			write: func(ctx context.Context, a *admin.AuditedFlags[thing, thing, int]) error {
				_, err := a.Toggle(ctx, "nope", nil)
				return err
			},
			wantKind: core.KindInvalid, wantEntry: `flag.toggle flag:nope failed null null`, wantWrites: 1},
		{name: "a malformed key: as an unknown one",
			write: func(ctx context.Context, a *admin.AuditedFlags[thing, thing, int]) error {
				_, err := a.Update(ctx, "bad key", 1)
				return err
			},
			wantKind: core.KindInvalid, wantEntry: `flag.update flag:bad key failed null null`, wantWrites: 1},
		{name: "a flag that cannot be read: refused, no entry, no write",
			write: func(ctx context.Context, a *admin.AuditedFlags[thing, thing, int]) error {
				return a.Delete(ctx, "down")
			},
			wantKind: core.KindUnavailable},
		{name: "not an administrator: refused, no entry, no write", ctx: annCtx,
			write: func(ctx context.Context, a *admin.AuditedFlags[thing, thing, int]) error {
				_, err := a.Create(ctx, thing{Key: "sneaky"})
				return err
			},
			wantKind: core.KindForbidden},
		{name: "nobody signed in: the same", ctx: context.Background(),
			write: func(ctx context.Context, a *admin.AuditedFlags[thing, thing, int]) error {
				return a.Delete(ctx, "dark")
			},
			wantKind: core.KindForbidden},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			log, repo := newLog()
			flags := newThings(thing{Key: "dark", N: 7})
			a := admin.NewAuditedFlags(log, flags, record, func(d thing) string { return d.Key })
			ctx := tc.ctx
			if ctx == nil {
				ctx = bossCtx
			}
			expectOutcome(t, tc.write(ctx, a), tc.wantKind, repo, tc.wantEntry)
			if len(flags.writes) != tc.wantWrites {
				t.Fatalf("writes %q, want %d", flags.writes, tc.wantWrites)
			}
		})
	}
}

func TestAuditedPoliciesRecordEverySet(t *testing.T) {
	t.Parallel()
	log, repo := newLog()
	policies := newThings()
	a := admin.NewAuditedPolicies(log, policies, record)
	if _, err := a.SetPolicy(bossCtx, "ios", thing{N: 1}); err != nil {
		t.Fatal(err)
	}
	if p, err := a.SetPolicy(bossCtx, "ios", thing{N: 2}); err != nil || p.N != 2 {
		t.Fatalf("%+v %v", p, err)
	}
	// An unknown platform is refused by the read: nothing recorded.
	if _, err := a.SetPolicy(bossCtx, "bad-palm", thing{}); !core.IsKind(err, core.KindInvalid) {
		t.Fatalf("bad platform: %v", err)
	}
	if _, err := a.SetPolicy(annCtx, "web", thing{}); !core.IsKind(err, core.KindForbidden) {
		t.Fatalf("not an administrator: %v", err)
	}
	want := []string{`version_policy.set platform:ios done null {"key":"ios","n":1}`,
		`version_policy.set platform:ios done {"key":"ios","n":1} {"key":"ios","n":2}`}
	if got := entries(t, repo); !slices.Equal(got, want) {
		t.Fatalf("entries %q, want %q", got, want)
	}
	if !slices.Equal(policies.writes, []string{"ios", "ios"}) {
		t.Fatalf("writes %q", policies.writes)
	}
}

func TestAuditedFeedbackRecordsWhoHandledIt(t *testing.T) {
	t.Parallel()
	log, repo := newLog()
	fb := newThings(thing{Key: "f1"})
	a := admin.NewAuditedFeedback(log, fb, record)
	if _, err := a.MarkHandled(bossCtx, "f1"); err != nil {
		t.Fatal(err)
	}
	// An unknown message is refused before anything is recorded.
	if _, err := a.MarkHandled(bossCtx, "f2"); !core.IsKind(err, core.KindNotFound) {
		t.Fatalf("unknown message: %v", err)
	}
	if _, err := a.MarkHandled(annCtx, "f1"); !core.IsKind(err, core.KindForbidden) {
		t.Fatalf("not an administrator: %v", err)
	}
	want := []string{`feedback.handle feedback:f1 done {"key":"f1","n":0} {"key":"f1","n":1}`}
	if got := entries(t, repo); !slices.Equal(got, want) {
		t.Fatalf("entries %q, want %q", got, want)
	}
	if !slices.Equal(fb.writes, []string{"f1 by boss@x.io"}) {
		t.Fatalf("writes %q", fb.writes)
	}
}
