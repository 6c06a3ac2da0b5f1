package partners

import (
	"slices"
	"time"
)

// Pairing is what a pairing decision reads about two users: the repository
// loads it inside the transaction that applies the decision, with the rows
// it depends on locked, so no concurrent submit, link or purge of either
// user can change it before the change is written (Repository.Pair).
type Pairing struct {
	Paired      []string      // those of the two who are members of a partnership
	Codes       []PairingCode // their pairing codes
	Connections []Connection  // their connection codes
	Requests    []Request     // the requests each of them sent
}

// PairingChange is what a decision writes. At most one field is set; the
// zero change writes nothing.
type PairingChange struct {
	// Partnership is created, and both users' pairing codes and every
	// request from or to either are cleared.
	Partnership *Partnership
	// Request is stored as Request.From's only request, replacing an
	// earlier one.
	Request *Request
}

func (st Pairing) paired(userID string) bool { return slices.Contains(st.Paired, userID) }

func (st Pairing) pairingCode(userID string) (PairingCode, bool) {
	i := slices.IndexFunc(st.Codes, func(c PairingCode) bool { return c.UserID == userID })
	if i < 0 {
		return PairingCode{}, false
	}
	return st.Codes[i], true
}

func (st Pairing) connection(userID string) (Connection, bool) {
	i := slices.IndexFunc(st.Connections, func(c Connection) bool { return c.UserID == userID })
	if i < 0 {
		return Connection{}, false
	}
	return st.Connections[i], true
}

func (st Pairing) requested(from, to string) bool {
	return slices.ContainsFunc(st.Requests, func(r Request) bool { return r.From == from && r.To == to })
}

// DecideSubmit is the mutual-pairing rule: q.From submits code, q.To's
// pairing code. When q.To had already submitted q.From's code, p (q.To as
// UserA) is created and the outcome is Connected with q.From's code;
// otherwise q is stored and the outcome is pending. Either user paired:
// already_paired; code no longer q.To's live code (replaced or expired
// since it was read): invalid_pairing_code.
func DecideSubmit(st Pairing, q Request, code string, p Partnership, now time.Time) (PairingChange, SubmitOutcome, error) {
	if st.paired(q.From) || st.paired(q.To) {
		return PairingChange{}, SubmitOutcome{}, errPairedMeanwhile()
	}
	if c, ok := st.pairingCode(q.To); !ok || c.Code != code || !c.ValidAt(now) {
		return PairingChange{}, SubmitOutcome{}, errInvalidPairingCode()
	}
	out := SubmitOutcome{PartnerID: q.To}
	if !st.requested(q.To, q.From) {
		return PairingChange{Request: &q}, out, nil
	}
	out.Connected = true
	if mine, ok := st.pairingCode(q.From); ok {
		out.MyCode = mine.Code
	}
	return PairingChange{Partnership: &p}, out, nil
}

// DecideLink is the connection-code rule: p.UserB links with code, the
// connection code of p.UserA. The code must still be p.UserA's and linkable
// (not_found otherwise: replaced, deleted or expired since it was read), and
// neither user paired (already_paired).
func DecideLink(st Pairing, code string, p Partnership, now time.Time) (PairingChange, error) {
	if c, ok := st.connection(p.UserA); !ok || c.Code != code || !c.LinkableAt(now) {
		return PairingChange{}, errConnectionNotFound()
	}
	if st.paired(p.UserA) || st.paired(p.UserB) {
		return PairingChange{}, errPairedMeanwhile()
	}
	return PairingChange{Partnership: &p}, nil
}
