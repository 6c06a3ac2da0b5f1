package sqlstore

import (
	"context"
	"sync"

	"github.com/jmoiron/sqlx"
)

// maxPrepared bounds the statement cache: queries are built from a fixed
// set of shapes, but an IN list's length is part of its text.
const maxPrepared = 512

// stmtCache keeps each query prepared once (database/sql then prepares it
// once per connection) instead of parsing it on every call: on SQLite the
// parser was 15% of the CPU of an event create under load. SQLite only:
// MySQL connections interpolate the arguments client-side, one round trip
// per query, and a server-side statement per query and connection would
// count against the server's max_prepared_stmt_count across processes.
type stmtCache struct {
	mu     sync.RWMutex
	stmts  map[string]*sqlx.Stmt
	closed bool
}

// prepared returns query prepared for q (the DB, or a transaction on it),
// or nil when the cache is off or full or preparing fails: the caller then
// runs the query text as it is.
//
// Preparing takes a pooled connection, and a transaction holds one: with
// every connection held by transactions that prepare, none would be left.
// On SQLite, the only dialect with the cache, a transaction runs in the
// process's turn to write (groupCommit), so one holds a connection at a time
// and the others are free. (Before the turn, the fixture of 10,000 couples
// ran into that now and then and failed on the busy timeout.)
func (d *DB) prepared(ctx context.Context, q any, query string) *sqlx.Stmt {
	if d.stmts == nil {
		return nil
	}
	st := d.stmts.get(ctx, d, query)
	if st == nil {
		return nil
	}
	switch q := q.(type) {
	case *DB:
		return st
	case *sqlx.Tx:
		// Closed with the transaction; reuses the connection's statement.
		return q.StmtxContext(ctx, st)
	}
	return nil
}

func (c *stmtCache) cached(query string) *sqlx.Stmt {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.stmts[query]
}

// get returns the cached statement, preparing it first when there is room.
// The lock is not held while preparing (that waits for a connection).
func (c *stmtCache) get(ctx context.Context, d *DB, query string) *sqlx.Stmt {
	if st := c.cached(query); st != nil {
		return st
	}
	c.mu.RLock()
	full := len(c.stmts) >= maxPrepared
	c.mu.RUnlock()
	if full {
		return nil
	}
	st, err := d.DB.PreparexContext(ctx, query)
	if err != nil {
		return nil // the unprepared run reports the error
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if won, ok := c.stmts[query]; ok || len(c.stmts) >= maxPrepared || c.closed {
		st.Close()
		return won
	}
	c.stmts[query] = st
	return st
}

// close releases every statement (the DB is closing).
func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	for q, st := range c.stmts {
		st.Close()
		delete(c.stmts, q)
	}
}
