package sqlstore_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"tandem/adapters/sqlstore"
	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/changes"
)

// The change feed's statements (issue 47) each read one range of an index:
// a reader's feed after a cursor and its head, idx_changes_user; the
// purge's batch, idx_changes_created, then the batch's ids; an account's
// deletion, its range of idx_changes_user and its head's key. The check of
// every statement (explained) fails only a scan with no usable index; this
// names the index and fails a sort. On a large set (make explain-scale) the
// same statements are EXPLAINed for a crowd user, and the plans logged
// (BENCHMARKS.md "Change feed").
func TestChangeFeedReadsAreIndexRanges(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		ctx := context.Background()
		db := newDB(t)
		clock := coretest.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		db.RecordChangesWith(changes.Recording{Clock: clock, Render: func(any) ([]byte, error) { return []byte(`{}`), nil }})
		repo := sqlstore.NewChangeRepo(db)
		for w := range 20 { // 20 readers' feeds, a tenth past the retention: on a few rows, MySQL scans
			if w == 2 {
				clock.Advance(60 * 24 * time.Hour)
			}
			var cs []core.Change
			for u := range 20 {
				cs = append(cs, core.Put(fmt.Sprint("u", u), core.ChangeMessage, fmt.Sprint("m", w), w))
			}
			if err := repo.Append(ctx, cs); err != nil {
				t.Fatal(err)
			}
		}
		var stmts []feedStatement
		sqlstore.SetObserver(db, func(q string, args []any) {
			if v := strings.Fields(q)[0]; v == "SELECT" || v == "DELETE" {
				stmts = append(stmts, feedStatement{q: q, args: append([]any(nil), args...)})
			}
		})
		step := func(name string, do func() error) {
			n := len(stmts)
			if err := do(); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for i := n; i < len(stmts); i++ {
				stmts[i].name = name
			}
		}
		step("since", func() error { _, err := repo.Since(ctx, "u1", 3, changes.DefaultLimit+1); return err })
		step("head", func() error { _, err := repo.Last(ctx, "u1"); return err })
		step("purge", func() error {
			_, err := repo.Purge(ctx, clock.Now().Add(-changes.DefaultRetention))
			return err
		})
		step("purge user", func() error { return repo.DeleteUser(ctx, "u2") })
		sqlstore.SetObserver(db, nil)
		if len(stmts) != 6 { // the purge: one batch's SELECT and DELETE; the user's: two DELETEs
			t.Fatalf("statements %+v", stmts)
		}
		for _, s := range stmts {
			plan := explainRows(t, db, s.q, s.args)
			if !s.ranged(db.Dialect, plan) {
				t.Errorf("%s: not a range of %v: %s\n%s", s.name, s.indexes(), s.q, strings.Join(plan, "\n"))
			}
		}
		large := largeSet(t, db.Dialect)
		if large == nil {
			return
		}
		crowd := "crowd-7-a" // 219 changes in the default spread
		for _, s := range stmts {
			args := append([]any(nil), s.args...)
			for i, a := range args {
				switch a {
				case "u1", "u2":
					args[i] = crowd
				}
			}
			if s.name == "purge" {
				args = purgeArgs(t, large, len(args))
			}
			plan := explainLarge(t, large, s.q, args)
			if !s.ranged(db.Dialect, plan) {
				t.Errorf("large set: %s: not a range of %v: %s\n%s", s.name, s.indexes(), s.q, strings.Join(plan, "\n"))
			}
			t.Logf("large set (%s), %s: %s: %s", db.Dialect, s.name, strings.Join(plan, "; "), s.q)
		}
	})
}

// purgeArgs are the arguments of the purge's statement of n on a large set:
// the cutoff of the retention, after as many of its expired ids.
func purgeArgs(t *testing.T, large *sqlstore.DB, n int) []any {
	cutoff := time.Now().Add(-changes.DefaultRetention).UnixMilli()
	var ids []int64
	if err := large.Select(&ids, "SELECT id FROM changes WHERE created_at < ? LIMIT ?", cutoff, n-1); err != nil {
		t.Fatal(err)
	}
	args := make([]any, 0, n)
	for _, id := range ids {
		args = append(args, id)
	}
	return append(args, cutoff)
}

type feedStatement struct {
	name, q string
	args    []any
}

// indexes are the indexes the statement may read a range of: the purge's
// DELETE, of its batch's ids or of the expired (both bounded by the batch).
func (s feedStatement) indexes() []string {
	switch {
	case strings.Contains(s.q, "change_heads"):
		return []string{"PRIMARY"}
	case s.name == "purge" && strings.HasPrefix(s.q, "DELETE"):
		return []string{"PRIMARY", "idx_changes_created"}
	case s.name == "purge":
		return []string{"idx_changes_created"}
	}
	return []string{"idx_changes_user"}
}

// ranged says whether plan reads one range of one of s's indexes, without
// a sort: MySQL's type range, ref, eq_ref or const on it (or the MAX read
// off the index's end, "Select tables optimized away"); SQLite's SEARCH
// with it.
func (s feedStatement) ranged(d sqlstore.Dialect, plan []string) bool {
	if len(plan) != 1 {
		return false
	}
	p := plan[0]
	if d == sqlstore.SQLite {
		return strings.HasPrefix(p, "SEARCH ") && !strings.Contains(p, "TEMP B-TREE") &&
			slices.ContainsFunc(s.indexes(), func(idx string) bool { return strings.Contains(p, sqliteIndex(s.q, idx)) })
	}
	if strings.Contains(p, "filesort") {
		return false
	}
	if strings.Contains(p, "Select tables optimized away") {
		return s.name == "head"
	}
	f := strings.Fields(p)
	switch f[0] {
	case "range", "ref", "eq_ref", "const":
		return len(f) > 1 && slices.Contains(s.indexes(), f[1])
	}
	return false
}

// sqliteIndex is how SQLite's plan names idx for q's table.
func sqliteIndex(q, idx string) string {
	switch {
	case idx != "PRIMARY":
		return "INDEX " + idx + " "
	case strings.Contains(q, "change_heads"):
		return "INDEX sqlite_autoindex_change_heads_1 "
	}
	return "INTEGER PRIMARY KEY"
}

// explainLarge is explainRows on a large set, with MySQL's row estimate.
func explainLarge(t *testing.T, db *sqlstore.DB, q string, args []any) []string {
	t.Helper()
	if db.Dialect == sqlstore.SQLite {
		return explainRows(t, db, q, args)
	}
	rows, err := db.Queryx("EXPLAIN "+q, args...)
	if err != nil {
		t.Fatalf("EXPLAIN %s: %v", q, err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		row := map[string]any{}
		if err := rows.MapScan(row); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, fmt.Sprintf("%s %s %s rows=%v", text(row["type"]), text(row["key"]), text(row["Extra"]), rows64(row["rows"])))
	}
	return plan
}

func rows64(v any) string {
	if s := text(v); s != "" {
		return s
	}
	return fmt.Sprint(v)
}
