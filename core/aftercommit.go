package core

import (
	"context"
	"time"
)

// AfterCommitBudget bounds what a write does after it committed: announce
// it on the live stream, read the readers it goes to, notify the partner.
// The write stands whatever follows; its answer must not wait on a
// database that hangs (a breaker opens only after seconds). A read or write
// past the budget fails with the context's error, and the announce is
// skipped: the apps see the write on their next read.
const AfterCommitBudget = 500 * time.Millisecond

// AfterCommit is ctx for the work that follows a commit, ended after
// AfterCommitBudget at the latest; call cancel when that work is done.
func AfterCommit(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, AfterCommitBudget)
}
