package memory

import (
	"cmp"
	"slices"
	"time"

	"tandem/core"
)

// table is one map of a store, with the chores every store repeated: the
// errors of a taken key (exists) and of a missing one (missing), copies in
// and out (clone, where V holds slices or bytes), a filtered scan, a
// filtered delete and at most one unique secondary index (unique).
//
// A table holds no lock: the store's one mutex guards all its tables, so a
// method that spans tables stays one step, like its SQL transaction.
type table[K comparable, V any] struct {
	rows            map[K]V // read freely; write through put and delete
	exists, missing func() error
	clone           func(V) V // nil: V shares nothing
	unique          func(V) string
	byUnique        map[string]K
}

// conflict and notFound make a table's errors of a taken and a missing key.
func conflict(id, format string, args ...any) func() error {
	return func() error { return core.Conflict("conflict", id, format, args...) }
}

func notFound(id, format string, args ...any) func() error {
	return func() error { return core.NotFound("not_found", id, format, args...) }
}

func newTable[K comparable, V any](exists, missing func() error) table[K, V] {
	return table[K, V]{rows: map[K]V{}, exists: exists, missing: missing}
}

// cloned is t copying its values in and out with clone.
func (t table[K, V]) cloned(clone func(V) V) table[K, V] {
	t.clone = clone
	return t
}

// indexed is t with the unique index of unique(v).
func (t table[K, V]) indexed(unique func(V) string) table[K, V] {
	t.unique, t.byUnique = unique, map[string]K{}
	return t
}

func (t *table[K, V]) copy(v V) V {
	if t.clone == nil {
		return v
	}
	return t.clone(v)
}

func (t *table[K, V]) conflict() error { return t.exists() }
func (t *table[K, V]) notFound() error { return t.missing() }

func (t *table[K, V]) len() int { return len(t.rows) }

func (t *table[K, V]) has(k K) bool {
	_, ok := t.rows[k]
	return ok
}

func (t *table[K, V]) get(k K) (V, bool) {
	v, ok := t.rows[k]
	return t.copy(v), ok
}

// find is k's row, or not found.
func (t *table[K, V]) find(k K) (V, error) {
	return t.findIf(k, nil)
}

// findIf is k's row if mine (nil: any) says it is the caller's, else not
// found: a row of someone else is as missing as no row.
func (t *table[K, V]) findIf(k K, mine func(V) bool) (V, error) {
	v, ok := t.rows[k]
	if !ok || (mine != nil && !mine(v)) {
		var zero V
		return zero, t.notFound()
	}
	return t.copy(v), nil
}

// insert stores v under k, or conflicts when k or v's unique key is taken.
func (t *table[K, V]) insert(k K, v V) error {
	if _, taken := t.rows[k]; taken {
		return t.conflict()
	}
	if t.unique != nil && t.taken(t.unique(v), k) {
		return t.conflict()
	}
	t.put(k, v)
	return nil
}

// put stores v under k, in place of k's row. v's unique key is k's from
// then on: callers that must refuse a taken one ask taken first.
func (t *table[K, V]) put(k K, v V) {
	t.unindex(k)
	t.rows[k] = t.copy(v)
	if t.unique != nil {
		t.byUnique[t.unique(v)] = k
	}
}

// update applies fn to a copy of k's row and stores it unless fn fails.
func (t *table[K, V]) update(k K, fn func(v *V) error) (V, error) {
	v, err := t.find(k)
	if err != nil {
		return v, err
	}
	if err := fn(&v); err != nil {
		var zero V
		return zero, err
	}
	t.put(k, v)
	return v, nil
}

func (t *table[K, V]) delete(k K) (V, bool) {
	v, ok := t.rows[k]
	t.unindex(k)
	delete(t.rows, k)
	return v, ok
}

// deleteWhere deletes the rows drop picks (asked once each) and returns
// their keys.
func (t *table[K, V]) deleteWhere(drop func(K, V) bool) []K {
	var gone []K
	for k, v := range t.rows {
		if drop(k, v) {
			t.delete(k)
			gone = append(gone, k)
		}
	}
	return gone
}

// scan copies out the rows keep picks (nil: all), in order (nil: any).
func (t *table[K, V]) scan(keep func(V) bool, order func(a, b V) int) []V {
	out := []V{}
	for _, v := range t.rows {
		if keep == nil || keep(v) {
			out = append(out, t.copy(v))
		}
	}
	if order != nil {
		slices.SortFunc(out, order)
	}
	return out
}

// pick is a row keep picks, if any (any one, when several do).
func (t *table[K, V]) pick(keep func(V) bool) (K, V, bool) {
	for k, v := range t.rows {
		if keep(v) {
			return k, t.copy(v), true
		}
	}
	var (
		zeroK K
		zeroV V
	)
	return zeroK, zeroV, false
}

// count counts the rows keep picks.
func (t *table[K, V]) count(keep func(V) bool) int {
	n := 0
	for _, v := range t.rows {
		if keep(v) {
			n++
		}
	}
	return n
}

// unindex takes k's row out of the unique index, unless another row took
// its place there.
func (t *table[K, V]) unindex(k K) {
	if old, ok := t.rows[k]; ok && t.unique != nil {
		if u := t.unique(old); t.byUnique[u] == k {
			delete(t.byUnique, u)
		}
	}
}

// lookup is the row of unique key u.
func (t *table[K, V]) lookup(u string) (V, bool) {
	k, ok := t.byUnique[u]
	if !ok {
		var zero V
		return zero, false
	}
	return t.get(k)
}

// taken reports whether unique key u is another row's than k's.
func (t *table[K, V]) taken(u string, k K) bool {
	owner, ok := t.byUnique[u]
	return ok && owner != k
}

// schedule is when each key is next due, as a due-time column with its
// index: due lists the keys due at now, the longest waiting first, then by
// key, as the SQL queries order them; move and clear act only from the time
// the caller read, as the SQL updates' WHERE does.
type schedule[K cmp.Ordered] map[K]time.Time

func (s schedule[K]) due(now time.Time, limit int) []K {
	var out []K
	for k, at := range s {
		if !at.After(now) {
			out = append(out, k)
		}
	}
	slices.SortFunc(out, func(a, b K) int { return cmp.Or(s[a].Compare(s[b]), cmp.Compare(a, b)) })
	return out[:min(limit, len(out))]
}

func (s schedule[K]) move(k K, from, to time.Time) bool {
	if at, ok := s[k]; !ok || !at.Equal(from) {
		return false
	}
	s[k] = to
	return true
}

func (s schedule[K]) clear(k K, at time.Time) bool {
	if old, ok := s[k]; !ok || !old.Equal(at) {
		return false
	}
	delete(s, k)
	return true
}

// lease points at the fields of an outbox row its queue reads and writes.
type lease struct {
	id          string
	attempts    *int
	next, until *time.Time
	claim       *string
}

// queue is an outbox: a row is due from its next attempt while no lease
// holds it and live (nil: always) says it may still go; due lists those
// soonest first, then by id, as the SQL queries order them; claim takes a
// lease; retry and forget act only for the lease's holder.
type queue[V any] struct {
	table[string, V]
	lease func(*V) lease
	live  func(v V, now time.Time) bool
}

func (q *queue[V]) isDue(v V, now time.Time) bool {
	l := q.lease(&v)
	return !l.next.After(now) && l.until.Before(now) && (q.live == nil || q.live(v, now))
}

func (q *queue[V]) due(now time.Time, limit int) []V {
	out := q.scan(func(v V) bool { return q.isDue(v, now) }, func(a, b V) int {
		la, lb := q.lease(&a), q.lease(&b)
		return cmp.Or(la.next.Compare(*lb.next), cmp.Compare(la.id, lb.id))
	})
	return out[:min(limit, len(out))]
}

func (q *queue[V]) claim(id, claim string, now, until time.Time) bool {
	v, ok := q.rows[id]
	if !ok || !q.isDue(v, now) {
		return false
	}
	l := q.lease(&v)
	*l.claim, *l.until = claim, until
	q.put(id, v)
	return true
}

// held is id's row while the lease claim holds it.
func (q *queue[V]) held(id, claim string) (V, bool) {
	v, ok := q.rows[id]
	return v, ok && claim != "" && *q.lease(&v).claim == claim
}

func (q *queue[V]) retry(id, claim string, attempts int, next time.Time) {
	if v, ok := q.held(id, claim); ok {
		l := q.lease(&v)
		*l.attempts, *l.next, *l.claim, *l.until = attempts, next, "", time.Time{}
		q.put(id, v)
	}
}

func (q *queue[V]) forget(id, claim string) {
	if _, ok := q.held(id, claim); ok {
		q.delete(id)
	}
}
