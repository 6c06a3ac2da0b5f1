package partners

import (
	"context"
	"tandem/core"
	"time"
)

// Repository stores partnerships, connection codes, pairing codes and pairing
// requests. Every method is one transaction. The repository loads, locks and
// saves; the module decides (Pair runs the module's rule inside the
// transaction). A user is a member of at most one
// partnership: the storage enforces it (a primary key on the member), so a
// second partnership fails inside the creating transaction. Methods that
// create a partnership return core.KindConflict with code already_paired
// when either user is (or concurrently became) a member.
type Repository interface {
	// Snapshot reads everything stored about the user at once.
	Snapshot(ctx context.Context, userID string) (Snapshot, error)
	// PartnershipOf returns the user's partnership; core.KindNotFound when unpaired.
	PartnershipOf(ctx context.Context, userID string) (Partnership, error)

	// PutConnection stores c as c.UserID's only connection code, replacing an
	// earlier one; core.KindConflict when another user holds a code with the
	// same ConnectionKey (codes are unique ignoring case).
	PutConnection(ctx context.Context, c Connection) error
	// ConnectionOf returns the user's connection; core.KindNotFound when none.
	ConnectionOf(ctx context.Context, userID string) (Connection, error)
	// ConnectionByCode returns the connection whose code is exactly code,
	// else the one whose ConnectionKey is code's; core.KindNotFound when
	// none. (Codes stored before keys were unique may share a key: the
	// oldest holds it, the others are found by their exact spelling.)
	ConnectionByCode(ctx context.Context, code string) (Connection, error)
	// PurgeExpiredConnections deletes the connections that expired at or
	// before now (ExpiresAt not after it) whose owners are not members of
	// a partnership, and returns how many.
	PurgeExpiredConnections(ctx context.Context, now time.Time) (int, error)

	// PutPairingCode stores c as c.UserID's only pairing code, replacing an
	// earlier one. core.KindConflict with code already_paired when the user is
	// paired; core.KindConflict (code conflict) when another user holds c.Code.
	PutPairingCode(ctx context.Context, c PairingCode) error
	// PairingCodeByCode returns the pairing code; core.KindNotFound when none.
	PairingCodeByCode(ctx context.Context, code string) (PairingCode, error)
	// Pair loads the Pairing of the two users in one transaction, holding
	// the rows it depends on (their member keys, pairing codes and
	// connection codes) against concurrent writers, runs decide on it and
	// writes the change decide returns in that transaction. When decide
	// fails, nothing is written and its error is returned. Creating a
	// partnership for a user who is a member fails with already_paired
	// whatever decide said. decide may run more than once (a transaction
	// that lost a deadlock runs again), so it must not have side effects.
	Pair(ctx context.Context, users [2]string, decide func(Pairing) (PairingChange, error)) error

	// End deletes the user's partnership, both members and the pairing codes
	// and requests of both users, returning what was ended; core.KindNotFound
	// when the user is not paired.
	End(ctx context.Context, userID string) (Partnership, error)
	// Purge ends the user's partnership as End does, if any, and deletes the
	// user's connection, pairing code and requests (both directions). It is
	// idempotent; ended is false when there was no partnership.
	Purge(ctx context.Context, userID string) (p Partnership, ended bool, err error)
	// ClearPairing deletes the user's pairing code and pairing requests
	// (both directions) and, unless the user is paired (both partners see
	// it then), the user's connection code; the partnership stays. It is
	// idempotent.
	ClearPairing(ctx context.Context, userID string) error
}

// Notifier sends a notification to a user (the notifications module: saved
// in the inbox, pushed when the user's settings allow the category). The
// partnership it announces is already stored, so its error never undoes or
// fails the link: the bootstrap adapter logs failures.
type Notifier interface {
	Notify(ctx context.Context, userID, category string, text core.Message) error
}
