package memory

import (
	"context"
	"sync"

	"tandem/core"
)

var _ core.Settings = (*SettingsRepo)(nil)

// SettingsRepo keeps the deployment's shared settings: in memory they are
// this process's own.
type SettingsRepo struct {
	mu     sync.Mutex
	byName map[string]string
}

func NewSettingsRepo() *SettingsRepo { return &SettingsRepo{byName: map[string]string{}} }

// Ensure stores value under name unless one is stored, and returns the stored one.
func (r *SettingsRepo) Ensure(_ context.Context, name, value string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if v, ok := r.byName[name]; ok {
		return v, nil
	}
	r.byName[name] = value
	return value, nil
}
