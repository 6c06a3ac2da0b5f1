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
	byKey table[string, flags.Flag]
}

func NewFlagRepo() *FlagRepo {
	return &FlagRepo{byKey: newTable[string, flags.Flag](conflict("memory.alreadyExists", "already exists"),
		notFound("memory.noSuchFlag", "no such flag")).cloned(cloneFlag)}
}

func cloneFlag(f flags.Flag) flags.Flag {
	f.EnabledForUserIDs = slices.Clone(f.EnabledForUserIDs)
	f.DisabledForUserIDs = slices.Clone(f.DisabledForUserIDs)
	f.Platforms = slices.Clone(f.Platforms)
	return f
}

func byFlagKey(a, b flags.Flag) int { return strings.Compare(a.Key, b.Key) }

func (r *FlagRepo) Create(_ context.Context, f flags.Flag, room core.Room) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, _, taken := r.byKey.pick(func(g flags.Flag) bool { return g.ID == f.ID }); taken || r.byKey.has(f.Key) {
		return r.byKey.conflict()
	}
	if err := room.Allows(int64(r.byKey.len())); err != nil {
		return err
	}
	return r.byKey.insert(f.Key, f)
}

func (r *FlagRepo) Get(_ context.Context, key string) (flags.Flag, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.byKey.find(key)
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
	out := r.byKey.scan(func(f flags.Flag) bool { return f.Key > after }, byFlagKey)
	r.mu.RUnlock()
	fs, next := flags.PageOf(out[:min(len(out), page.Size()+1)], page)
	return fs, next, nil
}

func (r *FlagRepo) Update(_ context.Context, key string, fn func(f *flags.Flag) error) (flags.Flag, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.byKey.update(key, func(f *flags.Flag) error {
		old := *f
		err := fn(f)
		f.ID, f.Key, f.CreatedBy, f.CreatedAt = old.ID, old.Key, old.CreatedBy, old.CreatedAt
		return err
	})
}

func (r *FlagRepo) Delete(_ context.Context, key string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.byKey.delete(key); !ok {
		return r.byKey.notFound()
	}
	return nil
}

func (r *FlagRepo) RuleFor(_ context.Context, key, userID string) (flags.Rule, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	f, err := r.byKey.find(key)
	if err != nil {
		return flags.Rule{}, err
	}
	return ruleOf(f, userID), nil
}

func (r *FlagRepo) RulesFor(_ context.Context, userID string) ([]flags.Rule, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	all := r.byKey.scan(nil, byFlagKey)
	if len(all) > flags.MaxFlags {
		all = all[:flags.MaxFlags]
	}
	out := make([]flags.Rule, 0, len(all))
	for _, f := range all {
		out = append(out, ruleOf(f, userID))
	}
	return out, nil
}

// ruleOf is f (a copy) without its lists, with where userID is listed in it.
func ruleOf(f flags.Flag, userID string) flags.Rule {
	l := flags.Unlisted
	switch {
	case userID == "":
	case slices.Contains(f.DisabledForUserIDs, userID):
		l = flags.ListedDisabled
	case slices.Contains(f.EnabledForUserIDs, userID):
		l = flags.ListedEnabled
	}
	f.EnabledForUserIDs, f.DisabledForUserIDs = nil, nil
	return flags.Rule{Flag: f, Listing: l}
}

func (r *FlagRepo) Unlist(_ context.Context, userID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	drop := func(id string) bool { return id == userID }
	for _, f := range r.byKey.scan(func(f flags.Flag) bool {
		return slices.Contains(f.EnabledForUserIDs, userID) || slices.Contains(f.DisabledForUserIDs, userID)
	}, nil) {
		f.EnabledForUserIDs = slices.DeleteFunc(f.EnabledForUserIDs, drop)
		f.DisabledForUserIDs = slices.DeleteFunc(f.DisabledForUserIDs, drop)
		r.byKey.put(f.Key, f)
	}
	return nil
}
