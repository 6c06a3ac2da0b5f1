package memory

import (
	"context"
	"slices"
	"sync"

	"tandem/core"
	"tandem/modules/memories"
)

var _ memories.Repository = (*MemoryRepo)(nil)

// MemoryRepo keeps memories in a map. It copies on the way in and out so
// callers can never alias stored state (Images included).
type MemoryRepo struct {
	mu   sync.RWMutex
	byID map[string]memories.Memory
}

func NewMemoryRepo() *MemoryRepo { return &MemoryRepo{byID: map[string]memories.Memory{}} }

func cloneMemory(m memories.Memory) memories.Memory {
	m.Images = append([]string{}, m.Images...)
	return m
}

func errNoMemory() error { return core.NotFound("not_found", "memory.noSuchMemory", "no such memory") }

// Create counts and inserts under the write lock, so concurrent creates never
// pass max.
func (r *MemoryRepo) Create(_ context.Context, m memories.Memory, room core.Room) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.byID[m.ID]; ok {
		return core.Conflict("conflict", "memory.alreadyExists", "already exists")
	}
	if err := room.Allows(int64(r.countOf(m.UserID))); err != nil {
		return err
	}
	r.byID[m.ID] = cloneMemory(m)
	return nil
}

// countOf counts the user's memories; the caller holds the lock.
func (r *MemoryRepo) countOf(userID string) int {
	n := 0
	for _, m := range r.byID {
		if m.UserID == userID {
			n++
		}
	}
	return n
}

func (r *MemoryRepo) Get(_ context.Context, userID, id string) (memories.Memory, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	m, ok := r.byID[id]
	if !ok || m.UserID != userID {
		return memories.Memory{}, errNoMemory()
	}
	return cloneMemory(m), nil
}

func (r *MemoryRepo) List(_ context.Context, userID string, span memories.Span, page core.Page) ([]memories.Memory, string, error) {
	var after *memories.Cursor
	if page.Cursor != "" {
		c, err := memories.ParseCursor(page.Cursor)
		if err != nil {
			return nil, "", err
		}
		after = &c
	}
	all := r.userMemories(userID, func(m memories.Memory) bool {
		return !m.Date.Before(span.From) && !m.Date.After(span.To) && (after == nil || after.After(m))
	})
	if len(all) > page.Size()+1 {
		all = all[:page.Size()+1]
	}
	ms, next := memories.PageOf(all, page)
	return ms, next, nil
}

func (r *MemoryRepo) Count(_ context.Context, userID string, date core.Date) (int, error) {
	return len(r.userMemories(userID, func(m memories.Memory) bool { return m.Date == date })), nil
}

// userMemories returns copies of the user's memories that keep, in list order.
func (r *MemoryRepo) userMemories(userID string, keep func(memories.Memory) bool) []memories.Memory {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := []memories.Memory{}
	for _, m := range r.byID {
		if m.UserID == userID && keep(m) {
			out = append(out, cloneMemory(m))
		}
	}
	slices.SortFunc(out, memories.ListOrder)
	return out
}

func (r *MemoryRepo) Update(_ context.Context, userID, id string, fn func(m *memories.Memory) error) (memories.Memory, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	old, ok := r.byID[id]
	if !ok || old.UserID != userID {
		return memories.Memory{}, errNoMemory()
	}
	m := cloneMemory(old)
	if err := fn(&m); err != nil {
		return memories.Memory{}, err
	}
	m.ID, m.UserID, m.CreatedAt = old.ID, old.UserID, old.CreatedAt
	r.byID[id] = cloneMemory(m)
	return m, nil
}

func (r *MemoryRepo) Delete(_ context.Context, userID, id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	m, ok := r.byID[id]
	if !ok || m.UserID != userID {
		return errNoMemory()
	}
	delete(r.byID, id)
	return nil
}

func (r *MemoryRepo) DeleteByUser(_ context.Context, userID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, m := range r.byID {
		if m.UserID == userID {
			delete(r.byID, id)
		}
	}
	return nil
}
