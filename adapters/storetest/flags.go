package storetest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/flags"
)

// FlagRepository checks a flags.Repository implementation.
func FlagRepository(t *testing.T, newRepo func(t *testing.T) flags.Repository) {
	s := flagSuite{newRepo: newRepo}
	t.Run("create, get, an unknown key", s.createAndGet)
	t.Run("a taken key is a conflict and changes nothing", s.takenKey)
	t.Run("no more than max flags", s.maxFlags)
	t.Run("list in byte order of the key, paged", s.listPages)
	t.Run("update applies fn atomically; an error writes nothing", s.update)
	t.Run("delete removes the flag and its lists", s.deleteFlag)
	t.Run("rules carry one user's listing and no lists", s.rules)
	t.Run("unlist removes the user from every list, only them", s.unlist)
}

// flagSuite holds FlagRepository's helpers and subtests.
type flagSuite struct {
	newRepo func(t *testing.T) flags.Repository
}

func (flagSuite) flag(key string) flags.Flag {
	return flags.Flag{ID: "id-" + key, Key: key, Name: "Name " + key, Description: "Description ✨",
		IsEnabled: true, EnabledForPremium: true, RolloutPercentage: 42,
		Platforms:         []flags.Platform{core.PlatformWeb, core.PlatformIOS},
		EnabledForUserIDs: []string{"A", "a", "u-1", "ü"}, DisabledForUserIDs: []string{"u-2"},
		CreatedBy: "boss@x.io", CreatedAt: now, UpdatedAt: now}
}

func (flagSuite) same(t *testing.T, got, want flags.Flag) {
	t.Helper()
	if got.ID != want.ID || got.Key != want.Key || got.Name != want.Name || got.Description != want.Description ||
		got.IsEnabled != want.IsEnabled || got.EnabledForPremium != want.EnabledForPremium ||
		got.RolloutPercentage != want.RolloutPercentage || !slices.Equal(got.Platforms, want.Platforms) ||
		!slices.Equal(got.EnabledForUserIDs, want.EnabledForUserIDs) ||
		!slices.Equal(got.DisabledForUserIDs, want.DisabledForUserIDs) || got.CreatedBy != want.CreatedBy ||
		!got.CreatedAt.Equal(want.CreatedAt) || !got.UpdatedAt.Equal(want.UpdatedAt) ||
		got.Platforms == nil || got.EnabledForUserIDs == nil || got.DisabledForUserIDs == nil {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
}

func (flagSuite) keys(fs []flags.Flag) []string {
	out := []string{}
	for _, f := range fs {
		out = append(out, f.Key)
	}
	return out
}

func (s flagSuite) createAndGet(t *testing.T) {
	r := s.newRepo(t)
	f := s.flag("dark_mode")
	f.UpdatedAt = time.UnixMilli(1750000000123).UTC() // milliseconds survive
	must(t, r.Create(ctx, f, flags.RoomFor(10)))
	got, err := r.Get(ctx, "dark_mode")
	must(t, err)
	s.same(t, got, f)
	_, err = r.Get(ctx, "Dark_mode")
	wantKind(t, err, core.KindNotFound)

	bare := flags.Flag{ID: "id-bare", Key: "bare", Name: "Bare", Platforms: []flags.Platform{},
		EnabledForUserIDs: []string{}, DisabledForUserIDs: []string{}, CreatedAt: now, UpdatedAt: now}
	must(t, r.Create(ctx, bare, flags.RoomFor(10)))
	got, err = r.Get(ctx, "bare")
	must(t, err)
	s.same(t, got, bare)
}

func (s flagSuite) takenKey(t *testing.T) {
	r := s.newRepo(t)
	must(t, r.Create(ctx, s.flag("k"), flags.RoomFor(10)))
	other := s.flag("k")
	other.ID, other.Name, other.EnabledForUserIDs = "id-other", "Other", []string{"z"}
	err := r.Create(ctx, other, flags.RoomFor(10))
	wantKind(t, err, core.KindConflict)
	if core.As(err).Code == flags.CodeTooMany {
		t.Fatalf("taken key reported as too many: %v", err)
	}
	got, _ := r.Get(ctx, "k")
	s.same(t, got, s.flag("k"))
}

func (s flagSuite) maxFlags(t *testing.T) {
	r := s.newRepo(t)
	must(t, r.Create(ctx, s.flag("a"), flags.RoomFor(2)))
	must(t, r.Create(ctx, s.flag("b"), flags.RoomFor(2)))
	wantCode(t, r.Create(ctx, s.flag("c"), flags.RoomFor(2)), core.KindConflict, flags.CodeTooMany)
	_, err := r.Get(ctx, "c")
	wantKind(t, err, core.KindNotFound)
	rules, err := r.RulesFor(ctx, "u-1")
	must(t, err)
	if len(rules) != 2 {
		t.Fatalf("%d flags after a refused create", len(rules))
	}
}

func (s flagSuite) listPages(t *testing.T) {
	r := s.newRepo(t)
	for _, k := range []string{"b", "a.b", "a-b", "a_b", "a9", "ab"} {
		must(t, r.Create(ctx, s.flag(k), flags.RoomFor(10)))
	}
	want := []string{"a-b", "a.b", "a9", "a_b", "ab", "b"}
	all, next, err := r.List(ctx, core.Page{})
	must(t, err)
	if !slices.Equal(s.keys(all), want) || next != "" {
		t.Fatalf("list %v next %q", s.keys(all), next)
	}
	for _, f := range all {
		s.same(t, f, s.flag(f.Key))
	}
	var got []string
	page := core.Page{Limit: 4}
	for {
		fs, next, err := r.List(ctx, page)
		must(t, err)
		for _, f := range fs {
			s.same(t, f, s.flag(f.Key)) // every page carries its lists
		}
		got = append(got, s.keys(fs)...)
		if next == "" {
			break
		}
		page.Cursor = next
	}
	if !slices.Equal(got, want) {
		t.Fatalf("pages %v", got)
	}
	_, _, err = r.List(ctx, core.Page{Limit: 2, Cursor: "nonsense"})
	wantKind(t, err, core.KindInvalid)
	empty, next, err := s.newRepo(t).List(ctx, core.Page{Limit: 3})
	must(t, err)
	if len(empty) != 0 || next != "" {
		t.Fatalf("empty store: %v %q", empty, next)
	}
}

func (s flagSuite) update(t *testing.T) {
	r := s.newRepo(t)
	must(t, r.Create(ctx, s.flag("k"), flags.RoomFor(10)))
	must(t, r.Create(ctx, s.flag("l"), flags.RoomFor(10)))
	later := now.Add(time.Hour)
	out, err := r.Update(ctx, "k", func(f *flags.Flag) error {
		f.Name, f.Description, f.IsEnabled, f.EnabledForPremium, f.RolloutPercentage = "New", "", false, false, 0
		f.Platforms = []flags.Platform{core.PlatformAndroid}
		f.EnabledForUserIDs, f.DisabledForUserIDs = []string{"u-2", "u-3"}, []string{}
		f.UpdatedAt = later
		f.ID, f.Key, f.CreatedBy, f.CreatedAt = "hijack", "other", "mallory", later // cannot change
		return nil
	})
	must(t, err)
	want := s.flag("k")
	want.Name, want.Description, want.IsEnabled, want.EnabledForPremium, want.RolloutPercentage = "New", "", false, false, 0
	want.Platforms, want.EnabledForUserIDs, want.DisabledForUserIDs = []flags.Platform{core.PlatformAndroid}, []string{"u-2", "u-3"}, []string{}
	want.UpdatedAt = later
	s.same(t, out, want)
	got, _ := r.Get(ctx, "k")
	s.same(t, got, want)
	other, _ := r.Get(ctx, "l")
	s.same(t, other, s.flag("l"))

	// only the scalar fields change: the lists stay
	_, err = r.Update(ctx, "k", func(f *flags.Flag) error { f.IsEnabled = true; return nil })
	must(t, err)
	want.IsEnabled = true
	got, _ = r.Get(ctx, "k")
	s.same(t, got, want)

	boom := errors.New("boom")
	_, err = r.Update(ctx, "k", func(f *flags.Flag) error { f.Name, f.EnabledForUserIDs = "lost", []string{"x"}; return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("fn error: %v", err)
	}
	got, _ = r.Get(ctx, "k")
	s.same(t, got, want)

	called := false
	_, err = r.Update(ctx, "ghost", func(*flags.Flag) error { called = true; return nil })
	wantKind(t, err, core.KindNotFound)
	if called {
		t.Fatal("fn called without a flag")
	}
}

func (s flagSuite) deleteFlag(t *testing.T) {
	r := s.newRepo(t)
	must(t, r.Create(ctx, s.flag("k"), flags.RoomFor(10)))
	must(t, r.Create(ctx, s.flag("l"), flags.RoomFor(10)))
	must(t, r.Delete(ctx, "k"))
	wantKind(t, r.Delete(ctx, "k"), core.KindNotFound)
	_, err := r.Get(ctx, "k")
	wantKind(t, err, core.KindNotFound)
	_, err = r.RuleFor(ctx, "k", "u-1")
	wantKind(t, err, core.KindNotFound)
	again := s.flag("k")
	again.ID, again.EnabledForUserIDs, again.DisabledForUserIDs = "id-again", []string{}, []string{}
	must(t, r.Create(ctx, again, flags.RoomFor(10))) // the key is free, and the old lists are gone
	got, _ := r.Get(ctx, "k")
	s.same(t, got, again)
	l, _ := r.Get(ctx, "l")
	s.same(t, l, s.flag("l"))
}

func (s flagSuite) rules(t *testing.T) {
	r := s.newRepo(t)
	must(t, r.Create(ctx, s.flag("k"), flags.RoomFor(10)))
	bare := s.flag("j")
	bare.EnabledForUserIDs, bare.DisabledForUserIDs = []string{}, []string{}
	must(t, r.Create(ctx, bare, flags.RoomFor(10)))
	for user, want := range map[string]flags.Listing{"u-1": flags.ListedEnabled, "a": flags.ListedEnabled,
		"u-2": flags.ListedDisabled, "u-9": flags.Unlisted, "": flags.Unlisted, "U-1": flags.Unlisted} {
		rule, err := r.RuleFor(ctx, "k", user)
		must(t, err)
		if rule.Listing != want || rule.Flag.Key != "k" || rule.Flag.RolloutPercentage != 42 || !rule.Flag.EnabledForPremium ||
			!slices.Equal(rule.Flag.Platforms, s.flag("k").Platforms) || rule.Flag.EnabledForUserIDs != nil || rule.Flag.DisabledForUserIDs != nil {
			t.Fatalf("%q: %+v", user, rule)
		}
		rules, err := r.RulesFor(ctx, user)
		must(t, err)
		if len(rules) != 2 || rules[0].Flag.Key != "j" || rules[0].Listing != flags.Unlisted ||
			rules[1].Flag.Key != "k" || rules[1].Listing != want || rules[1].Flag.Name != "Name k" {
			t.Fatalf("%q: %+v", user, rules)
		}
	}
	_, err := r.RuleFor(ctx, "nope", "u-1")
	wantKind(t, err, core.KindNotFound)
	rules, err := s.newRepo(t).RulesFor(ctx, "u-1")
	must(t, err)
	if len(rules) != 0 {
		t.Fatalf("empty store: %+v", rules)
	}
}

func (s flagSuite) unlist(t *testing.T) {
	r := s.newRepo(t)
	must(t, r.Create(ctx, s.flag("k"), flags.RoomFor(10)))
	l := s.flag("l")
	l.EnabledForUserIDs, l.DisabledForUserIDs = []string{"u-9"}, []string{"u-1"}
	must(t, r.Create(ctx, l, flags.RoomFor(10)))
	must(t, r.Unlist(ctx, "u-1"))
	must(t, r.Unlist(ctx, "u-1"))
	k, _ := r.Get(ctx, "k")
	wantK := s.flag("k")
	wantK.EnabledForUserIDs = []string{"A", "a", "ü"}
	s.same(t, k, wantK)
	gotL, _ := r.Get(ctx, "l")
	l.DisabledForUserIDs = []string{}
	s.same(t, gotL, l)
	rules, err := r.RulesFor(ctx, "u-1")
	must(t, err)
	for _, rule := range rules {
		if rule.Listing != flags.Unlisted {
			t.Fatalf("still listed: %+v", rule)
		}
	}
}
