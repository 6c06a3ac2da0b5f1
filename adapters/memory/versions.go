package memory

import (
	"context"
	"sync"

	"tandem/modules/versions"
)

var _ versions.Repository = (*VersionRepo)(nil)

// VersionRepo keeps one policy per platform. A Policy holds no slices or
// pointers, so storing and returning copies needs no cloning.
type VersionRepo struct {
	mu         sync.RWMutex
	byPlatform table[versions.Platform, versions.Policy]
}

func NewVersionRepo() *VersionRepo {
	return &VersionRepo{byPlatform: newTable[versions.Platform, versions.Policy](nil, notFound("memory.noVersionPolicy", "no version policy"))}
}

func (r *VersionRepo) Get(_ context.Context, platform versions.Platform) (versions.Policy, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.byPlatform.find(platform)
}

func (r *VersionRepo) Put(_ context.Context, p versions.Policy) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.byPlatform.put(p.Platform, p)
	return nil
}
