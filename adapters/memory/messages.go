package memory

import (
	"context"
	"sync"

	"tandem/core"
	"tandem/modules/messages"
)

var _ messages.Repository = (*MessageRepo)(nil)

// MessageRepo keeps messages in a map (messages hold no slices, so values
// never alias).
type MessageRepo struct {
	mu   sync.RWMutex
	rows table[string, messages.Message]
}

func NewMessageRepo() *MessageRepo {
	return &MessageRepo{rows: newTable[string, messages.Message](conflict("memory.alreadyExists", "already exists"), nil)}
}

func (r *MessageRepo) Add(_ context.Context, m messages.Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rows.insert(m.ID, m)
}

func (r *MessageRepo) List(_ context.Context, scope string, page core.Page) ([]messages.Message, string, error) {
	return r.page(page, func(m messages.Message) bool { return m.Scope == scope })
}

func (r *MessageRepo) ByAuthor(_ context.Context, authorID string, page core.Page) ([]messages.Message, string, error) {
	return r.page(page, func(m messages.Message) bool { return m.AuthorID == authorID })
}

// page returns one page, in list order, of the messages that keep.
func (r *MessageRepo) page(page core.Page, keep func(messages.Message) bool) ([]messages.Message, string, error) {
	var after *messages.Cursor
	if page.Cursor != "" {
		c, err := messages.ParseCursor(page.Cursor)
		if err != nil {
			return nil, "", err
		}
		after = &c
	}
	r.mu.RLock()
	all := r.rows.scan(func(m messages.Message) bool { return keep(m) && (after == nil || after.After(m)) }, messages.ListOrder)
	r.mu.RUnlock()
	if len(all) > page.Size()+1 {
		all = all[:page.Size()+1]
	}
	ms, next := messages.PageOf(all, page)
	return ms, next, nil
}

func (r *MessageRepo) DeleteUser(_ context.Context, userID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	solo := messages.SoloScope(userID)
	r.rows.deleteWhere(func(_ string, m messages.Message) bool { return m.AuthorID == userID || m.Scope == solo })
	return nil
}
