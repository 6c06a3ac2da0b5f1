package sqlstore

import (
	"context"
	"slices"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/jmoiron/sqlx"

	"tandem/core"
	"tandem/modules/partners"
)

var _ partners.Repository = (*PartnerRepo)(nil)

// PartnerRepo stores partnerships, partnership_members, partner_connections,
// pairing_codes and pairing_requests.
//
// Concurrency: the member primary key makes a second partnership for a user
// fail inside the creating transaction (already_paired). On SQLite every
// transaction is IMMEDIATE, so writers run one at a time. On MySQL the write
// transactions first take row locks (FOR UPDATE) on what they depend on: the
// connection code (link), both users' pairing codes in id order (submit),
// the partnership row (end), the member keys (anything that adds pairing
// data or a partnership); plain reads come after the locks, so they see what
// the previous holder committed. Any deadlock InnoDB still finds is detected
// at once, and its victim is run again (inTx).
type PartnerRepo struct{ db *DB }

func NewPartnerRepo(db *DB) *PartnerRepo { return &PartnerRepo{db: db} }

var (
	partnershipColumns = []string{"p.id", "p.user_a", "p.user_b", "p.created_at"}
	connectionColumns  = []string{"user_id", "id", "code", "created_at", "expires_at"}
	pairingCodeColumns = []string{"user_id", "code", "expires_at", "created_at"}
	requestColumns     = []string{"from_user", "to_user", "created_at"}
)

type partnershipRow struct {
	ID        string `db:"id"`
	UserA     string `db:"user_a"`
	UserB     string `db:"user_b"`
	CreatedAt int64  `db:"created_at"`
}

func (r partnershipRow) partnership() partners.Partnership {
	return partners.Partnership{ID: r.ID, UserA: r.UserA, UserB: r.UserB, CreatedAt: core.FromMillis(r.CreatedAt)}
}

type connectionRow struct {
	UserID    string `db:"user_id"`
	ID        string `db:"id"`
	Code      string `db:"code"`
	CreatedAt int64  `db:"created_at"`
	ExpiresAt int64  `db:"expires_at"`
}

func (r connectionRow) connection() partners.Connection {
	return partners.Connection{ID: r.ID, UserID: r.UserID, Code: r.Code, CreatedAt: core.FromMillis(r.CreatedAt),
		ExpiresAt: core.FromMillis(r.ExpiresAt)}
}

type pairingCodeRow struct {
	UserID    string `db:"user_id"`
	Code      string `db:"code"`
	ExpiresAt int64  `db:"expires_at"`
	CreatedAt int64  `db:"created_at"`
}

func (r pairingCodeRow) pairingCode() partners.PairingCode {
	return partners.PairingCode{UserID: r.UserID, Code: r.Code, ExpiresAt: core.FromMillis(r.ExpiresAt),
		CreatedAt: core.FromMillis(r.CreatedAt)}
}

type requestRow struct {
	From      string `db:"from_user"`
	To        string `db:"to_user"`
	CreatedAt int64  `db:"created_at"`
}

func (r requestRow) request() partners.Request {
	return partners.Request{From: r.From, To: r.To, CreatedAt: core.FromMillis(r.CreatedAt)}
}

func errPairedConflict() error {
	return core.Conflict("already_paired", "memory.alreadyPaired", "already paired")
}

// Snapshot reads without a transaction: on SQLite a transaction would take
// the write lock, and a status read tolerates a change between statements.
func (r *PartnerRepo) Snapshot(ctx context.Context, userID string) (partners.Snapshot, error) {
	var (
		s    partners.Snapshot
		ship partnershipRow
		conn connectionRow
		code pairingCodeRow
		out  requestRow
		in   []requestRow
	)
	hasShip, err := r.optional(ctx, &ship, r.partnershipQuery(userID))
	if err != nil {
		return s, err
	}
	hasConn, err := r.optional(ctx, &conn, r.db.sb.Select(connectionColumns...).From("partner_connections").
		Where(sq.Eq{"user_id": userID}))
	if err != nil {
		return s, err
	}
	hasCode, err := r.optional(ctx, &code, r.db.sb.Select(pairingCodeColumns...).From("pairing_codes").
		Where(sq.Eq{"user_id": userID}))
	if err != nil {
		return s, err
	}
	hasOut, err := r.optional(ctx, &out, r.db.sb.Select(requestColumns...).From("pairing_requests").
		Where(sq.Eq{"from_user": userID}))
	if err != nil {
		return s, err
	}
	if err := r.db.selectInto(ctx, r.db, &in, r.db.sb.Select(requestColumns...).From("pairing_requests").
		Where(sq.Eq{"to_user": userID}).OrderBy("created_at DESC", "from_user")); err != nil {
		return s, err
	}
	if hasShip {
		p := ship.partnership()
		s.Partnership = &p
	}
	if hasConn {
		c := conn.connection()
		s.Connection = &c
	}
	if hasCode {
		c := code.pairingCode()
		s.PairingCode = &c
	}
	if hasOut {
		q := out.request()
		s.Outgoing = &q
	}
	for _, row := range in {
		s.Incoming = append(s.Incoming, row.request())
	}
	return s, nil
}

// partnershipQuery reads the user's partnership through the member key.
func (r *PartnerRepo) partnershipQuery(userID string) sq.SelectBuilder {
	return r.db.sb.Select(partnershipColumns...).From("partnership_members m").
		Join("partnerships p ON p.id = m.partnership_id").Where(sq.Eq{"m.user_id": userID})
}

func (r *PartnerRepo) PartnershipOf(ctx context.Context, userID string) (partners.Partnership, error) {
	var row partnershipRow
	err := r.db.get(ctx, r.db, &row, r.partnershipQuery(userID))
	return row.partnership(), err
}

// PutConnection updates the user's row when there is one and inserts it
// otherwise; the unique index on code_key (the code in lower case) refuses
// another user's code in any case. The plain existence read takes no gap
// lock, so first codes of different users never block each other.
func (r *PartnerRepo) PutConnection(ctx context.Context, c partners.Connection) error {
	key := partners.ConnectionKey(c.Code)
	return r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		exists, err := r.exists(ctx, tx, "partner_connections", sq.Eq{"user_id": c.UserID})
		if err != nil {
			return err
		}
		if exists {
			return r.db.execOne(ctx, tx, r.db.sb.Update("partner_connections").Set("id", c.ID).Set("code", c.Code).
				Set("code_key", key).Set("created_at", c.CreatedAt.UnixMilli()).Set("expires_at", c.ExpiresAt.UnixMilli()).
				Where(sq.Eq{"user_id": c.UserID}))
		}
		return r.db.exec(ctx, tx, r.db.sb.Insert("partner_connections").
			Columns("user_id", "id", "code", "created_at", "expires_at", "code_key").
			Values(c.UserID, c.ID, c.Code, c.CreatedAt.UnixMilli(), c.ExpiresAt.UnixMilli(), key))
	})
}

// PurgeExpiredConnections reads a range of idx_partner_connections_expires;
// the members' primary key answers whether each owner is paired.
func (r *PartnerRepo) PurgeExpiredConnections(ctx context.Context, now time.Time) (int, error) {
	return r.db.purgeInBatches(ctx, "partner_connections", []string{"user_id"}, sq.And{
		sq.LtOrEq{"expires_at": now.UnixMilli()},
		sq.Expr("NOT EXISTS (SELECT 1 FROM partnership_members m WHERE m.user_id = partner_connections.user_id)")})
}

func (r *PartnerRepo) ConnectionOf(ctx context.Context, userID string) (partners.Connection, error) {
	return r.connectionBy(ctx, r.db, sq.Eq{"user_id": userID})
}

// ConnectionByCode tries the exact spelling first: a code stored before
// migration 00017 that shared its key with an older one has no key.
func (r *PartnerRepo) ConnectionByCode(ctx context.Context, code string) (partners.Connection, error) {
	c, err := r.connectionBy(ctx, r.db, sq.Eq{"code": code})
	if !isNotFound(err) {
		return c, err
	}
	return r.connectionBy(ctx, r.db, sq.Eq{"code_key": partners.ConnectionKey(code)})
}

func (r *PartnerRepo) connectionBy(ctx context.Context, q sqlx.QueryerContext, where sq.Eq) (partners.Connection, error) {
	b := r.db.sb.Select(connectionColumns...).From("partner_connections").Where(where)
	var row connectionRow
	err := r.db.get(ctx, q, &row, b)
	return row.connection(), err
}

// create inserts the partnership and both members, then clears both users'
// pairing data. A member already present fails on its primary key.
func (r *PartnerRepo) create(ctx context.Context, tx *sqlx.Tx, p partners.Partnership) error {
	if err := r.requireUnpaired(ctx, tx, p.UserA, p.UserB); err != nil {
		return err
	}
	if err := r.db.exec(ctx, tx, r.db.sb.Insert("partnerships").Columns("id", "user_a", "user_b", "created_at").
		Values(p.ID, p.UserA, p.UserB, p.CreatedAt.UnixMilli())); err != nil {
		return err
	}
	first, second := p.UserA, p.UserB
	if second < first {
		first, second = second, first // one lock order for every transaction
	}
	err := r.db.exec(ctx, tx, r.db.sb.Insert("partnership_members").Columns("user_id", "partnership_id", "partner_id").
		Values(first, p.ID, second).Values(second, p.ID, first))
	if core.IsKind(err, core.KindConflict) {
		return errPairedConflict()
	}
	if err != nil {
		return err
	}
	return r.clearPairing(ctx, tx, p.UserA, p.UserB)
}

// requireUnpaired fails with already_paired when one of users is a member.
func (r *PartnerRepo) requireUnpaired(ctx context.Context, tx *sqlx.Tx, users ...string) error {
	var paired []string
	if err := r.db.selectInto(ctx, tx, &paired, r.db.sb.Select("user_id").From("partnership_members").
		Where(sq.Eq{"user_id": users}).Suffix(r.db.forUpdate())); err != nil {
		return err
	}
	if len(paired) > 0 {
		return errPairedConflict()
	}
	return nil
}

// clearPairing deletes the users' pairing codes and every request from or to them.
func (r *PartnerRepo) clearPairing(ctx context.Context, tx *sqlx.Tx, users ...string) error {
	for _, del := range []sq.DeleteBuilder{
		r.db.sb.Delete("pairing_codes").Where(sq.Eq{"user_id": users}),
		r.db.sb.Delete("pairing_requests").Where(sq.Eq{"from_user": users}),
		r.db.sb.Delete("pairing_requests").Where(sq.Eq{"to_user": users}),
	} {
		if err := r.db.exec(ctx, tx, del); err != nil {
			return err
		}
	}
	return nil
}

// PutPairingCode holds the member key first (a locking read), so a code can
// never be stored for a user who is being paired meanwhile.
func (r *PartnerRepo) PutPairingCode(ctx context.Context, c partners.PairingCode) error {
	return r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := r.requireUnpaired(ctx, tx, c.UserID); err != nil {
			return err
		}
		exists, err := r.exists(ctx, tx, "pairing_codes", sq.Eq{"user_id": c.UserID})
		if err != nil {
			return err
		}
		if exists {
			return r.db.execOne(ctx, tx, r.db.sb.Update("pairing_codes").Set("code", c.Code).
				Set("expires_at", c.ExpiresAt.UnixMilli()).Set("created_at", c.CreatedAt.UnixMilli()).
				Where(sq.Eq{"user_id": c.UserID}))
		}
		return r.db.exec(ctx, tx, r.db.sb.Insert("pairing_codes").Columns(pairingCodeColumns...).
			Values(c.UserID, c.Code, c.ExpiresAt.UnixMilli(), c.CreatedAt.UnixMilli()))
	})
}

func (r *PartnerRepo) PairingCodeByCode(ctx context.Context, code string) (partners.PairingCode, error) {
	var row pairingCodeRow
	err := r.db.get(ctx, r.db, &row, r.db.sb.Select(pairingCodeColumns...).From("pairing_codes").Where(sq.Eq{"code": code}))
	return row.pairingCode(), err
}

// Pair first holds both users' pairing-code rows, then their connection
// rows, then their member keys, each in id order: two partners submitting
// each other's code at once, or two users linking with one code, then run
// one after the other. The request reads that follow are plain reads taken
// after the locks, so each sees what the previous holder committed.
func (r *PartnerRepo) Pair(ctx context.Context, users [2]string, decide func(partners.Pairing) (partners.PairingChange, error)) error {
	pair := users[:]
	slices.Sort(pair)
	return r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		st, err := r.lockPairing(ctx, tx, pair)
		if err != nil {
			return err
		}
		change, err := decide(st)
		if err != nil {
			return err
		}
		if change.Partnership != nil {
			return r.create(ctx, tx, *change.Partnership)
		}
		if q := change.Request; q != nil {
			return r.putRequest(ctx, tx, *q, st)
		}
		return nil
	})
}

// lockPairing reads the Pairing of users (sorted), locking as Pair says.
func (r *PartnerRepo) lockPairing(ctx context.Context, tx *sqlx.Tx, users []string) (partners.Pairing, error) {
	var (
		st    partners.Pairing
		codes []pairingCodeRow
		conns []connectionRow
		reqs  []requestRow
	)
	if err := r.db.selectInto(ctx, tx, &codes, r.db.sb.Select(pairingCodeColumns...).
		From("pairing_codes").Where(sq.Eq{"user_id": users}).OrderBy("user_id").Suffix(r.db.forUpdate())); err != nil {
		return st, err
	}
	if err := r.db.selectInto(ctx, tx, &conns, r.db.sb.Select(connectionColumns...).
		From("partner_connections").Where(sq.Eq{"user_id": users}).OrderBy("user_id").Suffix(r.db.forUpdate())); err != nil {
		return st, err
	}
	if err := r.db.selectInto(ctx, tx, &st.Paired, r.db.sb.Select("user_id").
		From("partnership_members").Where(sq.Eq{"user_id": users}).OrderBy("user_id").Suffix(r.db.forUpdate())); err != nil {
		return st, err
	}
	if err := r.db.selectInto(ctx, tx, &reqs, r.db.sb.Select(requestColumns...).From("pairing_requests").
		Where(sq.Eq{"from_user": users})); err != nil {
		return st, err
	}
	for _, c := range codes {
		st.Codes = append(st.Codes, c.pairingCode())
	}
	for _, c := range conns {
		st.Connections = append(st.Connections, c.connection())
	}
	for _, q := range reqs {
		st.Requests = append(st.Requests, q.request())
	}
	return st, nil
}

// putRequest stores q as q.From's only request: an update when st holds
// one from q.From, an insert otherwise.
func (r *PartnerRepo) putRequest(ctx context.Context, tx *sqlx.Tx, q partners.Request, st partners.Pairing) error {
	if slices.Contains(st.Paired, q.From) {
		return errPairedConflict()
	}
	if slices.ContainsFunc(st.Requests, func(old partners.Request) bool { return old.From == q.From }) {
		return r.db.execOne(ctx, tx, r.db.sb.Update("pairing_requests").Set("to_user", q.To).
			Set("created_at", q.CreatedAt.UnixMilli()).Where(sq.Eq{"from_user": q.From}))
	}
	return r.db.exec(ctx, tx, r.db.sb.Insert("pairing_requests").Columns(requestColumns...).
		Values(q.From, q.To, q.CreatedAt.UnixMilli()))
}

func (r *PartnerRepo) End(ctx context.Context, userID string) (partners.Partnership, error) {
	var p partners.Partnership
	err := r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		var err error
		p, err = r.end(ctx, tx, userID)
		return err
	})
	return p, err
}

// end locks the user's partnership row before changing anything, so both
// partners unpairing at once queue on it and the second finds nothing.
func (r *PartnerRepo) end(ctx context.Context, tx *sqlx.Tx, userID string) (partners.Partnership, error) {
	var id string
	if err := r.db.get(ctx, tx, &id, r.db.sb.Select("partnership_id").From("partnership_members").
		Where(sq.Eq{"user_id": userID})); err != nil {
		return partners.Partnership{}, err
	}
	var row partnershipRow
	if err := r.db.get(ctx, tx, &row, r.db.sb.Select("id", "user_a", "user_b", "created_at").
		From("partnerships").Where(sq.Eq{"id": id}).Suffix(r.db.forUpdate())); err != nil {
		return partners.Partnership{}, err
	}
	p := row.partnership()
	if err := r.db.exec(ctx, tx, r.db.sb.Delete("partnership_members").Where(sq.Eq{"partnership_id": p.ID})); err != nil {
		return partners.Partnership{}, err
	}
	if err := r.db.execOne(ctx, tx, r.db.sb.Delete("partnerships").Where(sq.Eq{"id": p.ID})); err != nil {
		return partners.Partnership{}, err
	}
	return p, r.clearPairing(ctx, tx, p.UserA, p.UserB)
}

func (r *PartnerRepo) Purge(ctx context.Context, userID string) (partners.Partnership, bool, error) {
	var (
		p     partners.Partnership
		ended bool
	)
	err := r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		var err error
		p, err = r.end(ctx, tx, userID)
		if ended, err = found(err); err != nil {
			return err
		}
		if err := r.clearPairing(ctx, tx, userID); err != nil {
			return err
		}
		return r.db.exec(ctx, tx, r.db.sb.Delete("partner_connections").Where(sq.Eq{"user_id": userID}))
	})
	if err != nil || !ended {
		return partners.Partnership{}, false, err
	}
	return p, true, nil
}

func (r *PartnerRepo) ClearPairing(ctx context.Context, userID string) error {
	return r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := r.clearPairing(ctx, tx, userID); err != nil {
			return err
		}
		return r.db.exec(ctx, tx, r.db.sb.Delete("partner_connections").Where(sq.Eq{"user_id": userID}).
			Where(sq.Expr("NOT EXISTS (SELECT 1 FROM partnership_members m WHERE m.user_id = ?)", userID)))
	})
}

// exists is a plain read of whether table has a row matching where.
func (r *PartnerRepo) exists(ctx context.Context, tx *sqlx.Tx, table string, where sq.Eq) (bool, error) {
	var n int
	err := r.db.get(ctx, tx, &n, r.db.sb.Select("COUNT(*)").From(table).Where(where))
	return n > 0, err
}

// optional reads at most one row into dst; ok is false when there is none.
func (r *PartnerRepo) optional(ctx context.Context, dst any, b sq.Sqlizer) (ok bool, err error) {
	return found(r.db.get(ctx, r.db, dst, b))
}

// found turns KindNotFound into (false, nil).
func found(err error) (bool, error) {
	if err == nil {
		return true, nil
	}
	if isNotFound(err) {
		return false, nil
	}
	return false, err
}
