package memory

import (
	"context"
	"slices"
	"strings"
	"sync"

	"tandem/core"
	"tandem/modules/flags"
)

var _ flags.Repository = (*FlagRepo)(nil)

// FlagRepo keeps flags by key under one mutex, so each method is atomic like
// its SQL transaction. It copies on the way in and out so callers can never
// alias stored lists.
type FlagRepo struct {
	mu    sync.RWMutex
	byKey map[string]flags.Flag
}

func NewFlagRepo() *FlagRepo { return &FlagRepo{byKey: map[string]flags.Flag{}} }

func cloneFlag(f flags.Flag) flags.Flag {
	f.EnabledForUserIDs = slices.Clone(f.EnabledForUserIDs)
	f.DisabledForUserIDs = slices.Clone(f.DisabledForUserIDs)
	f.Platforms = slices.Clone(f.Platforms)
	return f
}

func errNoFlag() error { return core.NotFound("not_found", "memory.noSuchFlag", "no such flag") }

func (r *FlagRepo) Create(_ context.Context, f flags.Flag, room core.Room) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.byKey[f.Key]; ok {
		return core.Conflict("conflict", "memory.alreadyExists", "already exists")
	}
	for _, g := range r.byKey {
		if g.ID == f.ID {
			return core.Conflict("conflict", "memory.alreadyExists", "already exists")
		}
	}
	if err := room.Allows(int64(len(r.byKey))); err != nil {
		return err
	}
	r.byKey[f.Key] = cloneFlag(f)
	return nil
}

func (r *FlagRepo) Get(_ context.Context, key string) (flags.Flag, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	f, ok := r.byKey[key]
	if !ok {
		return flags.Flag{}, errNoFlag()
	}
	return cloneFlag(f), nil
}

func (r *FlagRepo) List(_ context.Context, page core.Page) ([]flags.Flag, string, error) {
	after := ""
	if page.Cursor != "" {
		c, err := flags.ParseCursor(page.Cursor)
		if err != nil {
			return nil, "", err
		}
		after = c.Key
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := []flags.Flag{}
	for _, f := range r.sortedLocked() {
		if f.Key > after {
			out = append(out, cloneFlag(f))
		}
		if len(out) > page.Size() {
			break
		}
	}
	fs, next := flags.PageOf(out, page)
	return fs, next, nil
}

func (r *FlagRepo) sortedLocked() []flags.Flag {
	all := make([]flags.Flag, 0, len(r.byKey))
	for _, f := range r.byKey {
		all = append(all, f)
	}
	slices.SortFunc(all, func(a, b flags.Flag) int { return strings.Compare(a.Key, b.Key) })
	return all
}

func (r *FlagRepo) Update(_ context.Context, key string, fn func(f *flags.Flag) error) (flags.Flag, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	old, ok := r.byKey[key]
	if !ok {
		return flags.Flag{}, errNoFlag()
	}
	f := cloneFlag(old)
	if err := fn(&f); err != nil {
		return flags.Flag{}, err
	}
	f.ID, f.Key, f.CreatedBy, f.CreatedAt = old.ID, old.Key, old.CreatedBy, old.CreatedAt
	r.byKey[key] = cloneFlag(f)
	return f, nil
}

func (r *FlagRepo) Delete(_ context.Context, key string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.byKey[key]; !ok {
		return errNoFlag()
	}
	delete(r.byKey, key)
	return nil
}

func (r *FlagRepo) RuleFor(_ context.Context, key, userID string) (flags.Rule, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	f, ok := r.byKey[key]
	if !ok {
		return flags.Rule{}, errNoFlag()
	}
	return ruleOf(f, userID), nil
}

func (r *FlagRepo) RulesFor(_ context.Context, userID string) ([]flags.Rule, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	all := r.sortedLocked()
	if len(all) > flags.MaxFlags {
		all = all[:flags.MaxFlags]
	}
	out := make([]flags.Rule, 0, len(all))
	for _, f := range all {
		out = append(out, ruleOf(f, userID))
	}
	return out, nil
}

// ruleOf is f without its lists, with where userID is listed in it.
func ruleOf(f flags.Flag, userID string) flags.Rule {
	l := flags.Unlisted
	switch {
	case userID == "":
	case slices.Contains(f.DisabledForUserIDs, userID):
		l = flags.ListedDisabled
	case slices.Contains(f.EnabledForUserIDs, userID):
		l = flags.ListedEnabled
	}
	f = cloneFlag(f)
	f.EnabledForUserIDs, f.DisabledForUserIDs = nil, nil
	return flags.Rule{Flag: f, Listing: l}
}

func (r *FlagRepo) Unlist(_ context.Context, userID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	drop := func(id string) bool { return id == userID }
	for k, f := range r.byKey {
		if slices.Contains(f.EnabledForUserIDs, userID) || slices.Contains(f.DisabledForUserIDs, userID) {
			f = cloneFlag(f)
			f.EnabledForUserIDs = slices.DeleteFunc(f.EnabledForUserIDs, drop)
			f.DisabledForUserIDs = slices.DeleteFunc(f.DisabledForUserIDs, drop)
			r.byKey[k] = f
		}
	}
	return nil
}
