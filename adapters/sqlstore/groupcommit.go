package sqlstore

import (
	"context"
	"fmt"
	"sync"

	"github.com/jmoiron/sqlx"

	"tandem/core"
)

// maxGroup bounds the transactions one SQLite commit carries.
const maxGroup = 32

// groupCommit batches SQLite's write transactions. Writers queue their
// transaction; whoever holds the turn to write runs every queued one in a
// single SQLite transaction, each inside its own SAVEPOINT, and commits
// once. A member that fails is rolled back to its savepoint alone, so each
// keeps its own all-or-nothing; the others commit. Under a create load,
// committing (WAL frames, the checkpoint, shared-memory locks) was about a
// quarter of a write transaction's CPU; grouped, about nine transactions
// share one commit, and creates went from 2,500 to 3,700 a second.
//
// The turn (DB.writes) queues this process's writers in Go: a writer that
// met SQLite's lock taken would sleep in its busy handler, up to 100 ms a
// try, while the lock sat free. Other processes (a backup) still meet the
// busy timeout.
type groupCommit struct {
	mu     sync.Mutex
	queued []*pendingTx
}

// pendingTx is one writer's transaction waiting in the group.
type pendingTx struct {
	ctx      context.Context
	fn       func(tx *sqlx.Tx) error
	done     chan txResult // buffered: the runner never waits for the writer
	result   txResult      // set by finish, sent on done after the turn
	finished bool
}

type txResult struct {
	err   error
	panic any // fn panicked: re-raised in the writer's goroutine
}

// panicked carries a member's panic out of the batch.
type panicked struct{ value any }

func (p panicked) Error() string { return fmt.Sprint("panic in transaction: ", p.value) }

// inGroupTx is inTxOnce on SQLite: fn runs in the next group to commit.
func (d *DB) inGroupTx(ctx context.Context, fn func(tx *sqlx.Tx) error) error {
	me := &pendingTx{ctx: ctx, fn: fn, done: make(chan txResult, 1)}
	d.group.mu.Lock()
	d.group.queued = append(d.group.queued, me)
	d.group.mu.Unlock()
	for {
		select {
		case r := <-me.done:
			return r.raise()
		case d.writes <- struct{}{}:
			for _, p := range d.leadGroup() {
				p.done <- p.result
			}
			select { // its own transaction may have been in that group
			case r := <-me.done:
				return r.raise()
			default:
			}
		case <-ctx.Done():
			if d.group.withdraw(me) {
				return mapErr(ctx.Err())
			}
			return (<-me.done).raise() // already running: its result decides
		}
	}
}

func (r txResult) raise() error {
	if r.panic != nil {
		panic(r.panic)
	}
	return r.err
}

// withdraw takes p out of the queue; false when a group has taken it.
func (g *groupCommit) withdraw(p *pendingTx) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for i, q := range g.queued {
		if q == p {
			g.queued = append(g.queued[:i], g.queued[i+1:]...)
			return true
		}
	}
	return false
}

// take removes up to maxGroup queued transactions, oldest first.
func (g *groupCommit) take() []*pendingTx {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := min(len(g.queued), maxGroup)
	batch := append([]*pendingTx(nil), g.queued[:n]...)
	g.queued = append(g.queued[:0], g.queued[n:]...)
	return batch
}

// leadGroup runs the next group in the turn, which the caller has taken,
// and lets the turn go. It returns the group, every member with its result.
// Should the runner itself panic (not a member: those are recovered), the
// members not yet finished are answered with an error, so none waits for
// ever, and the turn is let go.
func (d *DB) leadGroup() (batch []*pendingTx) {
	defer func() { <-d.writes }()
	defer func() {
		if v := recover(); v != nil {
			for _, p := range batch {
				if !p.finished {
					p.finish(txResult{err: core.Internal(panicked{v})})
				}
				p.done <- p.result
			}
			panic(v)
		}
	}()
	batch = d.group.take()
	d.runBatch(batch)
	return batch
}

// runBatch commits the group: one group a turn, so a writer whose own
// transaction is further back lets the turn go and queues for it again.
func (d *DB) runBatch(batch []*pendingTx) {
	switch len(batch) {
	case 0: // an earlier group took them
	case 1:
		batch[0].finish(d.runAlone(batch[0]))
	default:
		d.runGroup(batch)
	}
}

// runAlone is one transaction of its own, in the turn already held.
func (d *DB) runAlone(p *pendingTx) (r txResult) {
	if err := p.ctx.Err(); err != nil {
		return txResult{err: mapErr(err)}
	}
	tx, err := d.BeginTxx(p.ctx, nil)
	if err != nil {
		return txResult{err: mapErr(err)}
	}
	if r = p.run(tx); r.err != nil || r.panic != nil {
		_ = tx.Rollback()
		return r
	}
	if err := tx.Commit(); err != nil {
		return txResult{err: mapErr(fmt.Errorf("commit: %w", err))}
	}
	return txResult{}
}

// runGroup runs each member in a savepoint of one transaction. If the
// transaction itself breaks (SQLite rolls a whole transaction back on some
// errors, an interrupted write among them), nothing of it is kept and every
// member not yet answered runs again alone: fn is re-runnable (see inTx).
func (d *DB) runGroup(batch []*pendingTx) {
	tx, err := d.BeginTxx(context.Background(), nil)
	if err != nil {
		for _, p := range batch {
			p.finish(txResult{err: mapErr(err)})
		}
		return
	}
	defer func() { // the runner's own panic (see leadGroup): nothing is kept
		if v := recover(); v != nil {
			_ = tx.Rollback()
			panic(v)
		}
	}()
	var committed []*pendingTx
	for i, p := range batch {
		if err := p.ctx.Err(); err != nil {
			p.finish(txResult{err: mapErr(err)})
			continue
		}
		r, intact := d.inSavepoint(tx, p)
		if !intact {
			_ = tx.Rollback()
			if r.err != nil || r.panic != nil {
				p.finish(r)
			} else {
				committed = append(committed, p)
			}
			d.rerunAlone(append(committed, batch[i+1:]...))
			return
		}
		if r.err != nil || r.panic != nil {
			p.finish(r)
			continue
		}
		committed = append(committed, p)
	}
	if err := tx.Commit(); err != nil {
		if err := mapErr(fmt.Errorf("commit: %w", err)); core.IsKind(err, core.KindInsufficientStorage) {
			finishAll(committed, txResult{err: err}) // nothing was kept; alone they would meet the same disk
			return
		}
		d.rerunAlone(committed)
		return
	}
	finishAll(committed, txResult{})
}

// rerunAlone runs each member again alone after the group's transaction
// broke. Once one meets a full disk, the rest are answered the same without
// a try: a full disk costs one more attempt, not one per member.
func (d *DB) rerunAlone(ps []*pendingTx) {
	for i, p := range ps {
		r := d.runAlone(p)
		p.finish(r)
		if core.IsKind(r.err, core.KindInsufficientStorage) {
			finishAll(ps[i+1:], r)
			return
		}
	}
}

func finishAll(ps []*pendingTx, r txResult) {
	for _, p := range ps {
		p.finish(r)
	}
}

// inSavepoint runs p's fn between SAVEPOINT and RELEASE, rolling back to
// the savepoint when it fails. intact is false when the transaction did not
// survive: a savepoint statement failed.
func (d *DB) inSavepoint(tx *sqlx.Tx, p *pendingTx) (r txResult, intact bool) {
	ctx := context.Background()
	if _, err := tx.ExecContext(ctx, "SAVEPOINT member"); err != nil {
		return txResult{err: mapErr(err)}, false
	}
	r = p.run(tx)
	if r.err != nil || r.panic != nil {
		if _, err := tx.ExecContext(ctx, "ROLLBACK TO member"); err != nil {
			return r, false
		}
	}
	if _, err := tx.ExecContext(ctx, "RELEASE member"); err != nil {
		return r, false
	}
	return r, true
}

// run calls fn, turning a panic into a result for its writer.
func (p *pendingTx) run(tx *sqlx.Tx) (r txResult) {
	defer func() {
		if v := recover(); v != nil {
			r = txResult{err: panicked{v}, panic: v}
		}
	}()
	return txResult{err: p.fn(tx)}
}

// finish records p's result; its writer hears it once the turn is let go.
// Waking the writers while holding the turn left it held and idle: the
// runner, preempted among 30 runnable request goroutines, waited for a
// processor with the turn in hand (62% of the goroutines' scheduling delay
// in a trace of a create load).
func (p *pendingTx) finish(r txResult) { p.result, p.finished = r, true }
