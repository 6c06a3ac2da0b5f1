package versions

import (
	"context"

	"tandem/core"
)

// Service holds every version-check rule of the API (docs/api.md).
type Service struct {
	repo  Repository
	clock core.Clock
}

// NewService is a plain constructor, usable without fx.
func NewService(repo Repository, clock core.Clock) *Service {
	return &Service{repo: repo, clock: clock}
}

// Check tells the client whether it must, should or may update. It is one
// read of the platform's policy; without a policy there is no update and
// the app may continue.
func (s *Service) Check(ctx context.Context, c Client) (Result, error) {
	platform, err := core.ParsePlatform(c.Platform)
	if err != nil {
		return Result{}, err
	}
	v, err := c.version()
	if err != nil {
		return Result{}, err
	}
	if err := c.validate(); err != nil {
		return Result{}, err
	}
	p, err := s.repo.Get(ctx, platform)
	switch {
	case core.IsKind(err, core.KindNotFound):
		return decide(nil, v, s.clock.Now()), nil
	case err != nil:
		return Result{}, err
	}
	return decide(&p, v, s.clock.Now()), nil
}

// Policy returns the platform's policy; 404 not_found when it has none.
func (s *Service) Policy(ctx context.Context, platform string) (Policy, error) {
	pl, err := core.ParsePlatform(platform)
	if err != nil {
		return Policy{}, err
	}
	p, err := s.repo.Get(ctx, pl)
	if core.IsKind(err, core.KindNotFound) {
		return Policy{}, errNoPolicy(pl)
	}
	return p, err
}

// SetPolicy creates or replaces the platform's policy (administrators).
func (s *Service) SetPolicy(ctx context.Context, platform string, d PolicyDraft) (Policy, error) {
	pl, err := core.ParsePlatform(platform)
	if err != nil {
		return Policy{}, err
	}
	p, err := d.policy(pl)
	if err != nil {
		return Policy{}, err
	}
	p.UpdatedAt = s.clock.Now()
	if err := s.repo.Put(ctx, p); err != nil {
		return Policy{}, err
	}
	return p, nil
}
