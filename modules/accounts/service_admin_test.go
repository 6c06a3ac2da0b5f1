// This file holds the tests of what administrators do: grant and revoke
// rights, search accounts, and name the users that exist.

package accounts_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/accounts"
)

func TestAdministrators(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	_, bossTok := f.verified(t, "boss@x.io")
	_, annTok := f.verified(t, "ann@x.io")
	if p, _ := f.svc.Authenticate(ctx, bossTok); !p.Admin {
		t.Fatal("configured e-mail is an administrator")
	}
	if p, _ := f.svc.Authenticate(ctx, annTok); p.Admin {
		t.Fatal("ann is not")
	}
	if err := f.svc.SetAdmin(ctx, "ANN@x.io", true); err != nil {
		t.Fatal(err)
	}
	if p, _ := f.svc.Authenticate(ctx, annTok); !p.Admin {
		t.Fatal("granted: the cached session is forgotten at once")
	}
	if err := f.svc.SetAdmin(ctx, "ann@x.io", false); err != nil {
		t.Fatal(err)
	}
	if p, _ := f.svc.Authenticate(ctx, annTok); p.Admin {
		t.Fatal("revoked: the cached session is forgotten at once")
	}
	coretest.WantErr(t, f.svc.SetAdmin(ctx, "ghost@x.io", true), core.KindNotFound, "user_not_found")
}

func TestSearchRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	// "ben" is an id too: a query that is an id finds that account first.
	for id, email := range map[string]string{"u1": "ann@x.io", "u2": "anna@x.io", "ben": "bob@x.io", "u4": "ben@x.io",
		"u5": "an_x@x.io", "u6": "ｚoe@x.io"} {
		if err := f.repo.Create(ctx, accounts.Account{ID: id, Email: accounts.FoldEmail(email)}); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name, q string
		want    string // the e-mails found, space-separated
		kind    core.Kind
	}{
		{name: "a prefix, folded, in e-mail order", q: "ANN", want: "ann@x.io anna@x.io"},
		{name: "a whole address, trimmed", q: "  Ann@X.io ", want: "ann@x.io"},
		{name: "a prefix folded as sign-up folds (full-width z)", q: "Ｚo", want: "zoe@x.io"},
		{name: "an id finds its account", q: "u2", want: "anna@x.io"},
		{name: "an id before a prefix", q: "ben", want: "bob@x.io"},
		{name: "an underscore is no wildcard", q: "an_", want: "an_x@x.io"},
		{name: "a percent sign is no wildcard", q: "%", want: ""},
		{name: "nothing found is an empty list", q: "nobody", want: ""},
		{name: "empty", q: "  ", kind: core.KindInvalid},
		{name: "longer than an e-mail", q: strings.Repeat("a", accounts.MaxEmail+1), kind: core.KindInvalid},
		{name: "far longer, refused before folding", q: strings.Repeat("ｚ", 4*accounts.MaxEmail), kind: core.KindInvalid},
		{name: "a control character", q: "ann\x00", kind: core.KindInvalid},
		{name: "invalid UTF-8", q: "ann\xff", kind: core.KindInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			as, next, err := f.svc.Search(ctx, tc.q, core.Page{Limit: 10})
			if tc.kind != 0 {
				coretest.WantErr(t, err, tc.kind, "invalid_request")
				return
			}
			if err != nil || as == nil || next != "" {
				t.Fatalf("got %v %q %v", as, next, err)
			}
			got := []string{}
			for _, a := range as {
				got = append(got, a.Email)
			}
			if strings.Join(got, " ") != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
	t.Run("a page at a time, at most MaxSearchPage", func(t *testing.T) {
		for i := range accounts.MaxSearchPage + 1 {
			if err := f.repo.Create(ctx, accounts.Account{ID: fmt.Sprintf("p%03d", i), Email: fmt.Sprintf("p%03d@x.io", i)}); err != nil {
				t.Fatal(err)
			}
		}
		for _, limit := range []int{0, accounts.MaxSearchPage + 1, core.MaxPageLimit} {
			as, next, err := f.svc.Search(ctx, "p", core.Page{Limit: limit})
			if err != nil || len(as) != accounts.MaxSearchPage || next == "" {
				t.Fatalf("limit %d: %d accounts, next %q, %v", limit, len(as), next, err)
			}
			rest, last, err := f.svc.Search(ctx, "p", core.Page{Limit: limit, Cursor: next})
			if err != nil || len(rest) != 1 || rest[0].Email != "p100@x.io" || last != "" {
				t.Fatalf("limit %d: then %v %q %v", limit, rest, last, err)
			}
		}
		_, _, err := f.svc.Search(ctx, "p", core.Page{Limit: 10, Cursor: "forged"})
		coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
	})
}

func TestEmailsNamesTheUsersThatExist(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	annID, _ := f.verified(t, "ann@x.io")
	got, err := f.svc.Emails(ctx, []string{annID, "", "ghost", annID})
	if err != nil || len(got) != 1 || got[annID] != "ann@x.io" {
		t.Fatalf("got %v %v", got, err)
	}
	if got, err := f.svc.Emails(ctx, nil); err != nil || got == nil || len(got) != 0 {
		t.Fatalf("no ids: %v %v", got, err)
	}
	many := make([]string, core.MaxPageLimit+1)
	for i := range many {
		many[i] = fmt.Sprint("u", i)
	}
	_, err = f.svc.Emails(ctx, many)
	coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
}
