package accounts_test

import (
	"reflect"
	"testing"
	"time"

	"tandem/modules/accounts"
)

// TestDecideSessions: the new token stays, the user's newest limit-1 others
// stay, the rest are revoked newest first.
func TestDecideSessions(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tok := func(id string, at int) accounts.Token {
		return accounts.Token{ID: id, Hash: "h-" + id, UserID: "u1", CreatedAt: t0.Add(time.Duration(at) * time.Minute)}
	}
	fresh := tok("new", 10)
	others := []accounts.Token{tok("a", 1), tok("b", 3), tok("c", 2)}
	cases := []struct {
		name   string
		others []accounts.Token
		limit  int
		want   []string
	}{
		{"the first token", nil, 2, nil},
		{"within the cap", others, 4, nil},
		{"at the cap", others, 3, []string{"h-a"}},
		{"beyond it, newest first", others, 1, []string{"h-b", "h-c", "h-a"}},
		{"ties go by id", []accounts.Token{tok("p", 1), tok("q", 1)}, 2, []string{"h-p"}},
		{"the new token stays even when the oldest", []accounts.Token{tok("z", 20)}, 1, []string{"h-z"}},
		{"the new token among the others counts once", append([]accounts.Token{fresh}, others...), 4, nil},
	}
	for _, tc := range cases {
		if got := accounts.DecideSessions(tc.others, fresh, tc.limit); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: revoked %v, want %v", tc.name, got, tc.want)
		}
	}
}
