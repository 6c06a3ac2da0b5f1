package bootstrap

import (
	"context"

	"tandem/modules/images"
	"tandem/modules/memories"
	"tandem/modules/premium"
)

// premiumLimits is memories.Limits and images.Limits on the premium module:
// the limits of the user's premium state (own subscription or the partner's),
// read on every checked write, so they change the moment premium does.
type premiumLimits struct{ svc *premium.Service }

func (p premiumLimits) MaxMemories(ctx context.Context, userID string) (int, error) {
	q, err := p.svc.Quota(ctx, userID)
	if err != nil {
		return 0, err
	}
	if q.Memories == premium.NoLimit {
		return memories.NoLimit, nil
	}
	return int(q.Memories), nil
}

func (p premiumLimits) MaxStorage(ctx context.Context, userID string) (images.StorageLimit, error) {
	q, err := p.svc.Quota(ctx, userID)
	if err != nil {
		return images.StorageLimit{}, err
	}
	if q.Storage == premium.NoLimit {
		return images.StorageLimit{Bytes: images.NoLimit}, nil
	}
	return images.StorageLimit{Bytes: q.Storage, Label: q.Label}, nil
}
