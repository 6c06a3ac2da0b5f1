package memory

import (
	"context"
	"sync"

	"tandem/core"
	"tandem/modules/versions"
)

var _ versions.Repository = (*VersionRepo)(nil)

// VersionRepo keeps one policy per platform. A Policy holds no slices or
// pointers, so storing and returning copies needs no cloning.
type VersionRepo struct {
	mu         sync.RWMutex
	byPlatform map[versions.Platform]versions.Policy
}

func NewVersionRepo() *VersionRepo {
	return &VersionRepo{byPlatform: map[versions.Platform]versions.Policy{}}
}

func (r *VersionRepo) Get(_ context.Context, platform versions.Platform) (versions.Policy, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	p, ok := r.byPlatform[platform]
	if !ok {
		return versions.Policy{}, core.NotFound("not_found", "memory.noVersionPolicy", "no version policy")
	}
	return p, nil
}

func (r *VersionRepo) Put(_ context.Context, p versions.Policy) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.byPlatform[p.Platform] = p
	return nil
}
