package memory

import (
	"context"
	"sync"

	"tandem/core"
	"tandem/modules/memories"
)

var _ memories.Repository = (*MemoryRepo)(nil)

// MemoryRepo keeps memories in a table. It copies on the way in and out so
// callers can never alias stored state (Images included).
type MemoryRepo struct {
	mu   sync.RWMutex
	rows table[string, memories.Memory]
}

func NewMemoryRepo() *MemoryRepo {
	return &MemoryRepo{rows: newTable[string, memories.Memory](conflict("memory.alreadyExists", "already exists"),
		notFound("memory.noSuchMemory", "no such memory")).cloned(cloneMemory)}
}

func cloneMemory(m memories.Memory) memories.Memory {
	m.Images = append([]string{}, m.Images...)
	return m
}

// Create counts and inserts under the write lock, so concurrent creates never
// pass max.
func (r *MemoryRepo) Create(_ context.Context, m memories.Memory, room core.Room) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.rows.has(m.ID) {
		return r.rows.conflict()
	}
	if err := room.Allows(int64(r.rows.count(memoryOf(m.UserID)))); err != nil {
		return err
	}
	return r.rows.insert(m.ID, m)
}

// memoryOf says whether a memory is userID's.
func memoryOf(userID string) func(memories.Memory) bool {
	return func(m memories.Memory) bool { return m.UserID == userID }
}

func (r *MemoryRepo) Get(_ context.Context, userID, id string) (memories.Memory, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.rows.findIf(id, memoryOf(userID))
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
	return r.rows.scan(func(m memories.Memory) bool { return m.UserID == userID && keep(m) }, memories.ListOrder)
}

func (r *MemoryRepo) Update(_ context.Context, userID, id string, fn func(m *memories.Memory) error) (memories.Memory, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, err := r.rows.findIf(id, memoryOf(userID)); err != nil {
		return memories.Memory{}, err
	}
	return r.rows.update(id, func(m *memories.Memory) error {
		old := *m
		err := fn(m)
		m.ID, m.UserID, m.CreatedAt = old.ID, old.UserID, old.CreatedAt
		return err
	})
}

func (r *MemoryRepo) Delete(_ context.Context, userID, id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, err := r.rows.findIf(id, memoryOf(userID)); err != nil {
		return err
	}
	r.rows.delete(id)
	return nil
}

func (r *MemoryRepo) DeleteByUser(_ context.Context, userID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rows.deleteWhere(func(_ string, m memories.Memory) bool { return m.UserID == userID })
	return nil
}
