package accounts

import (
	"slices"
	"strings"
)

// DecideSessions is the session cap: t, a new token, stays, and of the
// user's other tokens the newest limit-1 stay (newest by creation, then id).
// It returns the hashes of the rest, newest first, to revoke.
func DecideSessions(others []Token, t Token, limit int) []string {
	mine := slices.DeleteFunc(slices.Clone(others), func(o Token) bool { return o.Hash == t.Hash })
	slices.SortFunc(mine, func(a, b Token) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	var revoke []string
	for _, old := range mine[min(max(limit-1, 0), len(mine)):] {
		revoke = append(revoke, old.Hash)
	}
	return revoke
}

// KeepSessions is CreateToken's decide for t under the cap of limit sessions.
func KeepSessions(t Token, limit int) func(others []Token) []string {
	return func(others []Token) []string { return DecideSessions(others, t, limit) }
}
