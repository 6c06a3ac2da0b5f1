package bootstrap

import (
	"context"

	"tandem/modules/premium"
)

// premiumStatus is flags.Premium on the premium module: a user is premium
// when their derived status says so (own subscription or the partner's).
type premiumStatus struct{ svc *premium.Service }

func (p premiumStatus) IsPremium(ctx context.Context, userID string) (bool, error) {
	st, err := p.svc.Status(ctx, userID)
	return st.IsPremium, err
}
