package core

import (
	"context"
	"sync/atomic"
	"time"
)

// The durable change feed (GET .../changes, issue 47): every write an app
// should see is recorded, in the write's own transaction, as one Change per
// reader who may see it.
//
// How a change gets its data (the decision of issue 47): the module that
// writes knows, per reader, the typed record that reader's REST read shows
// (the same values it gives core.Live), and hands them over with the write
// (WithChanges). The store renders each with a ChangeRenderer (bound by
// bootstrap to the HTTP adapter's mappers, the ones of the REST answers)
// and inserts the rows in the transaction of the write: the feed stores
// exactly the JSON the reader's REST read returned at that commit, and the
// write and its changes commit together or not at all. A module never sees
// JSON, and the feed's read is one index range, with nothing to render.
// A reader who may no longer read a record (an ex-partner) is given its
// ChangeDelete by the write that took the access away (SharedData), and
// one who may read records again or anew (the solo thread after an
// unpair, the partner's events and shared premium after a pairing) their
// puts by the write that gave the access (SharedData, GainedData). A read
// that changes with time alone is recorded by the job that notices it (a
// premium's lapse).
//
// A write looks up its readers (the current partner) before it runs, not
// in its transaction: the partnership is another module's. An unpair
// enumerates what each partner loses again after its commit and records
// what that adds (a message sent while it ran). A change read through the
// partnership names it (Through), and the store records it only while the
// partnership stands: the SQL stores read its row in the write's
// transaction, which the unpair's lock on the row orders, so a write that
// looked up the partner before an unpair and commits after it gives the
// ex-partner nothing; the memory store checks when it appends the changes.
// A pairing enumerates what each partner gains again after its commit too;
// a write racing it past that may still miss the new partner, and one's own
// premium written after an unpair may still show the ex-partner's;
// docs/api.md "Sync" says so, and a full refetch repairs it.

// The feed's kinds of record (the change union of /openapi.json).
const (
	ChangeMessage      = "message"
	ChangeMemory       = "memory"
	ChangeEvent        = "event"
	ChangeImage        = "image"
	ChangeQuestion     = "question"
	ChangeMood         = "mood"
	ChangeNotification = "notification"
	ChangeRelationship = "relationship"
	ChangePairing      = "pairing"
	ChangePartnership  = "partnership"
	ChangeProfile      = "profile"
	ChangePremium      = "premium"
)

// ChangesOf are the changes of the record kind/id for the readers of a
// core.Live's For: a put of each reader's record, a delete for a
// core.Deleted one.
func ChangesOf(kind, id string, readers map[string]any) []Change {
	out := make([]Change, 0, len(readers))
	for reader, rec := range readers {
		if _, gone := rec.(Deleted); gone {
			out = append(out, Delete(reader, kind, id))
			continue
		}
		out = append(out, Put(reader, kind, id, rec))
	}
	return out
}

// ChangeOp is what happened to a record for its reader.
type ChangeOp string

const (
	ChangePut    ChangeOp = "put"    // the record as the reader now reads it
	ChangeDelete ChangeOp = "delete" // gone, or no longer readable by the reader
)

// Change is one record's change for one reader.
type Change struct {
	Seq    int64  // the feed's position: set by the store, increasing in commit order
	UserID string // the reader
	Kind   string // "message", "memory", ... (the feed's kinds)
	ID     string // the record's id (the reader's own id for a per-user singleton)
	Op     ChangeOp
	// Record is the module's typed record for a put, as core.Live's For
	// holds it; the store renders it into Data. A func() any is called
	// after the write ran, in its transaction (the record an update's
	// callback made).
	Record any
	Data   []byte // the rendered JSON of a put; nil for a delete
	At     time.Time
	// Via is the partnership through which the reader reads the record
	// (Through): "" for what they read as their own. A store that checks
	// it in the write's transaction drops the change when the partnership
	// is gone (an unpair that committed first).
	Via string
}

// Through is cs, each read through the partnership partnershipID (Via): a
// partner's changes, which a write that commits after the unpair must not
// record. An empty partnershipID (unpaired) leaves them as they are.
func Through(partnershipID string, cs ...Change) []Change {
	out := make([]Change, len(cs))
	for i, c := range cs {
		c.Via = partnershipID
		out[i] = c
	}
	return out
}

// Put is a put of rec for reader.
func Put(reader, kind, id string, rec any) Change {
	return Change{UserID: reader, Kind: kind, ID: id, Op: ChangePut, Record: rec}
}

// Delete is a delete of the record kind/id for reader.
func Delete(reader, kind, id string) Change {
	return Change{UserID: reader, Kind: kind, ID: id, Op: ChangeDelete}
}

// ChangeRenderer renders a put's typed record as the JSON of its REST read.
type ChangeRenderer func(rec any) ([]byte, error)

// PendingChanges are the changes of one write, riding on its context to the
// store. A store with transactions records them in the transaction of the
// write's first commit and marks them (MarkRecorded); WriteWithChanges
// hands those a store did not take (the memory store: no transactions) to
// the change log after the write.
type PendingChanges struct {
	Changes  []Change
	recorded atomic.Bool
}

// Recorded says whether a transaction holding the changes committed.
func (p *PendingChanges) Recorded() bool { return p.recorded.Load() }

// MarkRecorded: the transaction holding the changes committed.
func (p *PendingChanges) MarkRecorded() { p.recorded.Store(true) }

type pendingChangesKey struct{}

// PendingChangesFrom is what a write of ctx must record: nil when nothing,
// or when it is recorded already.
func PendingChangesFrom(ctx context.Context) *PendingChanges {
	p, _ := ctx.Value(pendingChangesKey{}).(*PendingChanges)
	if p == nil || p.Recorded() || len(p.Changes) == 0 {
		return nil
	}
	return p
}

// ChangesCommitted is published when a write committed changes its store
// did not record itself (the memory store); the change log records them.
type ChangesCommitted struct{ Changes []Change }

func (ChangesCommitted) EventName() string { return "ChangesCommitted" }

// WriteWithChanges runs write with cs pending on its context. On success,
// changes no transaction recorded are published as ChangesCommitted,
// resolved (Resolved), without those the write did not make (NoChange).
func WriteWithChanges(ctx context.Context, bus Publisher, cs []Change, write func(ctx context.Context) error) error {
	if len(cs) == 0 {
		return write(ctx)
	}
	p := &PendingChanges{Changes: cs}
	if err := write(context.WithValue(ctx, pendingChangesKey{}, p)); err != nil {
		return err
	}
	if p.Recorded() || bus == nil {
		return nil
	}
	made := make([]Change, 0, len(cs)) // resolved now the write ran: those it made
	for _, c := range cs {
		if c = c.Resolved(); !c.Dropped() {
			made = append(made, c)
		}
	}
	if len(made) > 0 {
		bus.Publish(ctx, ChangesCommitted{Changes: made})
	}
	return nil
}

// WithoutChanges is ctx for a write that is no part of the changes (a rate
// counter spent inside the write's context).
func WithoutChanges(ctx context.Context) context.Context {
	return context.WithValue(ctx, pendingChangesKey{}, (*PendingChanges)(nil))
}

// RecordOf is a change's record, a func() any called.
func RecordOf(rec any) any {
	if f, ok := rec.(func() any); ok {
		return f()
	}
	return rec
}

// PutMade is a put for reader of the record the write makes, whose id is
// known only after it ran (an upsert that may keep an existing record's
// id): made is called after the write, in its transaction.
func PutMade(reader, kind string, made func() (id string, rec any)) Change {
	return Change{UserID: reader, Kind: kind, Op: ChangePut, Record: made}
}

// NoChange is the record of a change the write decided not to make (a
// func() any record of a write that decides in its transaction, as a
// pairing code submitted that connects, or only waits): the store drops
// the change.
type NoChange struct{}

// Dropped says whether a resolved change is one the write did not make.
func (c Change) Dropped() bool {
	_, no := c.Record.(NoChange)
	return no
}

// SharedData is implemented by every module whose records a partnership
// lets a partner read: when a partnership ends, each former partner is
// given the feed's deletes of what they read only through it (and the
// puts of what they read again). Modules contribute one through the
// "shared" value group.
//
// Each owner enumerates its records page by page before the pairing's
// write (or its end's), which records them all in its transaction: a
// couple with many records gives as many rows, one per record per reader,
// held in memory until the commit. That is the refetch the feed spares
// the app, and pairings and their ends are rare.
type SharedData interface {
	// LostWith are the changes, for reader, of the end of partnershipID
	// with exPartner: the deletes of the records reader may read only
	// while partnered, and the puts of those the end makes readable
	// again (the solo thread).
	LostWith(ctx context.Context, partnershipID, reader, exPartner string) ([]Change, error)
}

// GainedData is a SharedData owner whose records a new partnership
// changes for a member: the pairing records, in its transaction, the puts
// of what the member may now read through it (the partner's events, the
// premium a partner shares) and the deletes of what it hides (the solo
// thread). An owner whose records belong to the partnership (moods, the
// relationship, the question) has none at its start: those the
// partnership makes are recorded by the writes that make them.
type GainedData interface {
	SharedData
	// GainedWith are the changes, for reader, of the start of
	// partnershipID with partner.
	GainedWith(ctx context.Context, partnershipID, reader, partner string) ([]Change, error)
}

// ChangesIf are cs, each made only when made says so: a write that decides
// in its transaction whether it changes anything (a pairing code submitted
// that connects or only waits; a store's notification older than the
// state stored). made is called after the write ran, in its transaction.
func ChangesIf(cs []Change, made func() bool) []Change {
	out := make([]Change, len(cs))
	for i, c := range cs {
		if f, ok := c.Record.(func() (string, any)); ok {
			c.Record = func() (string, any) {
				if !made() {
					return c.ID, NoChange{}
				}
				return f()
			}
		} else {
			rec := c.Record
			c.Record = func() any {
				if !made() {
					return NoChange{}
				}
				return RecordOf(rec)
			}
		}
		out[i] = c
	}
	return out
}

// Resolved is c with the record (and, for a PutMade, the id) the write
// made: a store calls it after the write ran, before rendering.
func (c Change) Resolved() Change {
	if f, ok := c.Record.(func() (string, any)); ok {
		c.ID, c.Record = f()
		return c
	}
	c.Record = RecordOf(c.Record)
	return c
}
