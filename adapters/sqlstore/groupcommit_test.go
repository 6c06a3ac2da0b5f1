package sqlstore

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"tandem/core"
)

// openGroupTest opens a SQLite database with one table, g(k primary key).
func openGroupTest(t *testing.T) (*DB, context.Context) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	d, err := Open(ctx, Config{Dialect: SQLite, DSN: filepath.Join(t.TempDir(), "g.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	if _, err := d.ExecContext(ctx, "CREATE TABLE g (k TEXT PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	return d, ctx
}

// member is one writer's transaction in a group, and what it got back.
type member struct {
	ctx    context.Context
	fn     func(tx *sqlx.Tx) error
	giveUp context.CancelFunc // called once every member has queued
	err    error
	pan    any
}

// inOneGroup runs the members' transactions in one group commit, in their
// order: the turn is held until every one has queued, then let go.
func inOneGroup(t *testing.T, d *DB, members []*member) {
	t.Helper()
	d.writes <- struct{}{}
	var wg sync.WaitGroup
	for i, m := range members { // one at a time: the group runs them in this order
		wg.Go(func() {
			defer func() { m.pan = recover() }()
			m.err = d.inTx(m.ctx, m.fn)
		})
		for deadline := time.Now().Add(10 * time.Second); d.group.queue() <= i; {
			if time.Now().After(deadline) {
				t.Fatalf("%d of %d queued", d.group.queue(), len(members))
			}
			time.Sleep(100 * time.Microsecond)
		}
	}
	for _, m := range members {
		if m.giveUp != nil {
			m.giveUp()
		}
	}
	<-d.writes
	wg.Wait()
}

func (g *groupCommit) queue() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.queued)
}

func insertKeys(d *DB, ctx context.Context, keys ...string) func(tx *sqlx.Tx) error {
	return func(tx *sqlx.Tx) error {
		for _, k := range keys {
			if err := d.exec(ctx, tx, d.sb.Insert("g").Columns("k").Values(k)); err != nil {
				return err
			}
		}
		return nil
	}
}

func storedKeys(t *testing.T, d *DB, ctx context.Context) []string {
	t.Helper()
	var keys []string
	if err := d.selectInto(ctx, d, &keys, d.sb.Select("k").From("g").OrderBy("k")); err != nil {
		t.Fatal(err)
	}
	return keys
}

// TestGroupCommitKeepsEachTransactionWhole: transactions that commit as one
// group still succeed or fail alone. A member that fails halfway (its second
// row breaks the key) leaves nothing, one that panics leaves nothing and
// panics in its own writer, one whose writer gave up while queued never
// runs, and one that destroys the shared transaction costs the others
// nothing: they run again alone.
func TestGroupCommitKeepsEachTransactionWhole(t *testing.T) {
	t.Parallel()
	failed := errors.New("refused")
	cases := []struct {
		name    string
		members func(d *DB, ctx context.Context) []*member
		want    []string
		errs    []error // per member: nil, or the error it must get
		panics  []bool
	}{{
		name: "every member commits",
		members: func(d *DB, ctx context.Context) []*member {
			return []*member{{ctx: ctx, fn: insertKeys(d, ctx, "a1", "a2")}, {ctx: ctx, fn: insertKeys(d, ctx, "b")},
				{ctx: ctx, fn: insertKeys(d, ctx, "c")}}
		},
		want: []string{"a1", "a2", "b", "c"},
		errs: []error{nil, nil, nil},
	}, {
		name: "a member failing halfway leaves nothing",
		members: func(d *DB, ctx context.Context) []*member {
			return []*member{{ctx: ctx, fn: insertKeys(d, ctx, "a")}, {ctx: ctx, fn: insertKeys(d, ctx, "b1", "a")},
				{ctx: ctx, fn: insertKeys(d, ctx, "c")}}
		},
		want: []string{"a", "c"},
		errs: []error{nil, core.Conflict("conflict", "sqlstore.message", ""), nil},
	}, {
		name: "a member returning an error leaves nothing",
		members: func(d *DB, ctx context.Context) []*member {
			write := insertKeys(d, ctx, "b")
			return []*member{{ctx: ctx, fn: insertKeys(d, ctx, "a")},
				{ctx: ctx, fn: func(tx *sqlx.Tx) error { _ = write(tx); return failed }}}
		},
		want: []string{"a"},
		errs: []error{nil, failed},
	}, {
		name: "a panic reaches its own writer only",
		members: func(d *DB, ctx context.Context) []*member {
			write := insertKeys(d, ctx, "b")
			return []*member{{ctx: ctx, fn: func(tx *sqlx.Tx) error { _ = write(tx); panic("boom") }},
				{ctx: ctx, fn: insertKeys(d, ctx, "a")}}
		},
		want:   []string{"a"},
		errs:   []error{nil, nil},
		panics: []bool{true, false},
	}, {
		name: "a writer that gave up never runs",
		members: func(d *DB, ctx context.Context) []*member {
			gone, giveUp := context.WithCancel(ctx)
			return []*member{{ctx: ctx, fn: insertKeys(d, ctx, "a")},
				{ctx: gone, fn: insertKeys(d, gone, "b"), giveUp: giveUp}}
		},
		want: []string{"a"},
		errs: []error{nil, context.Canceled},
	}, {
		name: "a broken transaction: the others run again alone",
		members: func(d *DB, ctx context.Context) []*member {
			return []*member{{ctx: ctx, fn: insertKeys(d, ctx, "a")},
				{ctx: ctx, fn: func(tx *sqlx.Tx) error {
					_, err := tx.ExecContext(ctx, "ROLLBACK") // the group's transaction is gone
					if err != nil {
						return err
					}
					return failed
				}},
				{ctx: ctx, fn: insertKeys(d, ctx, "c")}}
		},
		want: []string{"a", "c"},
		errs: []error{nil, failed, nil},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			d, ctx := openGroupTest(t)
			members := c.members(d, ctx)
			inOneGroup(t, d, members)
			for i, m := range members {
				if want := c.errs[i]; !sameError(m.err, want) {
					t.Errorf("member %d: error %v, want %v", i, m.err, want)
				}
				if wantPanic := c.panics != nil && c.panics[i]; (m.pan != nil) != wantPanic {
					t.Errorf("member %d: panic %v, want one: %v", i, m.pan, wantPanic)
				}
			}
			if got := storedKeys(t, d, ctx); !slices.Equal(got, c.want) {
				t.Errorf("stored %v, want %v", got, c.want)
			}
		})
	}
}

// sameError: nil for nil, the same kind for a core error, the error
// itself (or wrapped) otherwise.
func sameError(got, want error) bool {
	var w *core.Error
	if errors.As(want, &w) {
		return core.IsKind(got, w.Kind)
	}
	return errors.Is(got, want)
}

// TestGroupCommitIsOneTransaction: the group's members commit together:
// the last one sees the earlier members' rows, which another connection
// does not see yet.
func TestGroupCommitIsOneTransaction(t *testing.T) {
	t.Parallel()
	d, ctx := openGroupTest(t)
	var inside, outside int
	count := func(tx *sqlx.Tx) error {
		if err := d.get(ctx, tx, &inside, d.sb.Select("COUNT(*)").From("g")); err != nil {
			return err
		}
		return d.get(ctx, d, &outside, d.sb.Select("COUNT(*)").From("g"))
	}
	inOneGroup(t, d, []*member{{ctx: ctx, fn: insertKeys(d, ctx, "a")}, {ctx: ctx, fn: insertKeys(d, ctx, "b")},
		{ctx: ctx, fn: count}})
	if inside != 2 || outside != 0 {
		t.Fatalf("the last member saw %d rows, another connection %d: want 2 and 0", inside, outside)
	}
	if got := storedKeys(t, d, ctx); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("stored %v", got)
	}
}

// faultyContext panics when the runner asks whether its writer gave up:
// a fault in the runner itself, outside any member's function.
type faultyContext struct{ context.Context }

func (faultyContext) Err() error { panic("runner fault") }

// TestGroupCommitSurvivesItsRunnerPanicking: when the runner itself panics,
// the panic reaches the writer that was running the group, every other
// member is answered with an error rather than left waiting, nothing of the
// group is kept, and the turn is free for the next writer.
func TestGroupCommitSurvivesItsRunnerPanicking(t *testing.T) {
	t.Parallel()
	d, ctx := openGroupTest(t)
	members := []*member{{ctx: ctx, fn: insertKeys(d, ctx, "a")}, {ctx: faultyContext{ctx}, fn: insertKeys(d, ctx, "b")},
		{ctx: ctx, fn: insertKeys(d, ctx, "c")}}
	inOneGroup(t, d, members)
	panics := 0
	for i, m := range members {
		switch {
		case m.pan != nil:
			panics++
		case !core.IsKind(m.err, core.KindInternal):
			t.Errorf("member %d: error %v, want an internal error or the panic", i, m.err)
		}
	}
	if panics != 1 {
		t.Fatalf("%d writers panicked, want the one that ran the group", panics)
	}
	if got := storedKeys(t, d, ctx); len(got) != 0 {
		t.Fatalf("stored %v, want nothing of the group", got)
	}
	if err := d.inTx(ctx, insertKeys(d, ctx, "d")); err != nil {
		t.Fatalf("the next writer: %v", err)
	}
	if got := storedKeys(t, d, ctx); !slices.Equal(got, []string{"d"}) {
		t.Fatalf("stored %v", got)
	}
}
