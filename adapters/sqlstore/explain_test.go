package sqlstore_test

import (
	"context"
	"database/sql"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"tandem/adapters/sqlstore"
	"tandem/core"
	"tandem/modules/accounts"
)

// explained has every SELECT, UPDATE and DELETE that db's repositories
// issue EXPLAINed first, on the live data, once per statement and dialect:
// a full table scan with no usable index fails t. On SQLite that is what
// EXPLAIN QUERY PLAN calls "SCAN <table>" without an index: a partial index
// the query's terms do not imply shows up here. eachDialect gives every
// contract suite its databases through it.
func explained(t *testing.T, db *sqlstore.DB) *sqlstore.DB {
	sqlstore.SetObserver(db, func(q string, args []any) {
		verb := strings.ToUpper(strings.Fields(q)[0])
		if verb != "SELECT" && verb != "UPDATE" && verb != "DELETE" {
			return
		}
		if _, seen := explainedQueries.LoadOrStore(string(db.Dialect)+" "+q, true); !seen {
			explain(t, db, q, args)
			if large := largeSet(t, db.Dialect); large != nil {
				explain(t, large, q, args)
				explainedLarge.Add(1)
			}
		}
	})
	return db
}

// explainedQueries holds "dialect query" once EXPLAINed.
var explainedQueries sync.Map

// The large data sets (issue 36, make explain-scale): with
// TANDEM_EXPLAIN_SQLITE (a database file) or TANDEM_EXPLAIN_MYSQL (a DSN)
// set, every statement is also EXPLAINed on that data set, a crowd of
// `tandem-load prepare -spread`, where the planner sees real row counts.
var (
	largeSets      sync.Map // dialect → *sqlstore.DB, or error
	explainedLarge atomic.Int64
)

func largeSet(t *testing.T, d sqlstore.Dialect) *sqlstore.DB {
	env := map[sqlstore.Dialect]string{sqlstore.SQLite: "TANDEM_EXPLAIN_SQLITE", sqlstore.MySQL: "TANDEM_EXPLAIN_MYSQL"}[d]
	dsn := os.Getenv(env)
	if dsn == "" {
		return nil
	}
	v, ok := largeSets.Load(d)
	if !ok {
		db, err := sqlstore.Open(context.Background(), sqlstore.Config{Dialect: d, DSN: dsn})
		if err != nil {
			v = err
		} else {
			v = db // kept open for the test binary's life
		}
		v, _ = largeSets.LoadOrStore(d, v)
	}
	if err, bad := v.(error); bad {
		t.Fatalf("%s: %v", env, err)
	}
	return v.(*sqlstore.DB)
}

// TestTheLargeSetIsLarge: a large set named but empty (or without the
// change feed's rows), or a test binary
// that EXPLAINed nothing there, measures nothing.
func TestTheLargeSetIsLarge(t *testing.T) {
	for _, d := range []sqlstore.Dialect{sqlstore.SQLite, sqlstore.MySQL} {
		large := largeSet(t, d)
		if large == nil {
			continue
		}
		var n int64
		if err := large.Get(&n, "SELECT COUNT(*) FROM events"); err != nil {
			t.Fatal(err)
		}
		if n < 100_000 {
			t.Fatalf("%s: the large set has %d events", d, n)
		}
		var feed int64 // the change feed's rows (issue 47): a set prepared before them plans its reads on none
		if err := large.Get(&feed, "SELECT COUNT(*) FROM changes"); err != nil {
			t.Fatal(err)
		}
		if feed < 1_000_000 {
			t.Fatalf("%s: the large set has %d changes: prepare it again (tandem-load prepare -spread default)", d, feed)
		}
		t.Logf("%s: %d events and %d changes in the large set", d, n, feed)
	}
}

// TestEveryQueryHasAnIndex: the EXPLAIN check is wired; a repository's
// statement reaches it.
func TestEveryQueryHasAnIndex(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		db := newDB(t)
		if _, err := sqlstore.NewAccountRepo(db).GetByEmail(context.Background(), "nobody@x.io"); !core.IsKind(err, core.KindNotFound) {
			t.Fatalf("got %v", err)
		}
		n := 0
		explainedQueries.Range(func(k, _ any) bool {
			if strings.HasPrefix(k.(string), string(db.Dialect)+" SELECT") {
				n++
			}
			return true
		})
		if n == 0 {
			t.Fatal("no statement was EXPLAINed")
		}
	})
}

// TestAccountSearchReadsAnEmailRange: the console's e-mail prefix search,
// first page and next, is a range of uq_accounts_email. The check above
// fails only a scan with no usable index; a LIKE the planner could not
// bound (a leading wildcard let through, a collation the index does not
// have) would still walk every e-mail.
func TestAccountSearchReadsAnEmailRange(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		ctx := context.Background()
		db := newDB(t)
		repo := sqlstore.NewAccountRepo(db)
		for _, e := range []string{"an_a@x.io", "ann@x.io", "anna@x.io", "annie@x.io", "ben@x.io", "zed@x.io"} {
			if err := repo.Create(ctx, accounts.Account{ID: e, Email: e, PasswordHash: "h"}); err != nil {
				t.Fatal(err)
			}
		}
		var searches [][]any // the query, then its arguments
		sqlstore.SetObserver(db, func(q string, args []any) {
			if strings.Contains(q, " LIKE ") {
				searches = append(searches, append([]any{q}, args...))
			}
		})
		next := ""
		for _, prefix := range []string{"an_", "ann", "ann"} { // the last from the cursor the one before gave
			var err error
			if _, next, err = repo.Search(ctx, prefix, core.Page{Limit: 1, Cursor: next}); err != nil {
				t.Fatal(err)
			}
		}
		if len(searches) != 3 || !strings.Contains(searches[2][0].(string), "email > ?") {
			t.Fatalf("searches %v", searches)
		}
		for _, s := range searches {
			q, args := s[0].(string), s[1:]
			if plan := explainRows(t, db, q, args); !emailRange(db.Dialect, plan) {
				t.Errorf("not a range of uq_accounts_email: %s %v\n%s", q, args, strings.Join(plan, "\n"))
			}
		}
	})
}

// explainRows is the plan of q, a line a step: MySQL's type, key and Extra;
// SQLite's detail.
func explainRows(t *testing.T, db *sqlstore.DB, q string, args []any) []string {
	t.Helper()
	prefix := "EXPLAIN "
	if db.Dialect == sqlstore.SQLite {
		prefix = "EXPLAIN QUERY PLAN "
	}
	rows, err := db.Queryx(prefix+q, args...)
	if err != nil {
		t.Fatalf("%s%s: %v", prefix, q, err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		row := map[string]any{}
		if err := rows.MapScan(row); err != nil {
			t.Fatal(err)
		}
		if db.Dialect == sqlstore.SQLite {
			plan = append(plan, text(row["detail"]))
		} else {
			plan = append(plan, text(row["type"])+" "+text(row["key"])+" "+text(row["Extra"]))
		}
	}
	return plan
}

func emailRange(d sqlstore.Dialect, plan []string) bool {
	want := "range uq_accounts_email "
	if d == sqlstore.SQLite {
		want = "SEARCH accounts USING INDEX uq_accounts_email (email>? AND email<?)"
	}
	return len(plan) == 1 && strings.HasPrefix(plan[0], want) && !strings.Contains(plan[0], "filesort") &&
		!strings.Contains(plan[0], "TEMP B-TREE")
}

func explain(t *testing.T, db *sqlstore.DB, q string, args []any) {
	if db.Dialect == sqlstore.SQLite {
		explainSQLite(t, db, q, args)
		return
	}
	// Without its lock: MariaDB reads a table it finds by a constant key
	// while it plans, and the FOR UPDATE would make that read wait for
	// the very transaction about to run q (the plan is the same).
	q = strings.Replace(q, " FOR UPDATE", "", 1)
	rows, err := db.Queryx("EXPLAIN "+q, args...)
	if err != nil {
		t.Errorf("EXPLAIN %s: %v", q, err)
		return
	}
	defer rows.Close()
	for rows.Next() {
		row := map[string]any{}
		if err := rows.MapScan(row); err != nil {
			t.Errorf("EXPLAIN %s: %v", q, err)
			return
		}
		typ, keys, extra := text(row["type"]), text(row["possible_keys"]), text(row["Extra"])
		if typ == "ALL" && keys == "" && !strings.Contains(extra, "Impossible") {
			t.Errorf("full scan of %s without a usable index: %s", text(row["table"]), q)
		}
	}
}

// explainSQLite fails on a plan step that scans a whole table: "SCAN t",
// with no index after it (SEARCH, and SCAN ... USING INDEX, read one).
func explainSQLite(t *testing.T, db *sqlstore.DB, q string, args []any) {
	rows, err := db.Queryx("EXPLAIN QUERY PLAN "+q, args...)
	if err != nil {
		t.Errorf("EXPLAIN QUERY PLAN %s: %v", q, err)
		return
	}
	defer rows.Close()
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Errorf("EXPLAIN QUERY PLAN %s: %v", q, err)
			return
		}
		if f := strings.Fields(detail); len(f) == 2 && f[0] == "SCAN" {
			t.Errorf("full scan of %s without a usable index: %s", f[1], q)
		}
	}
}

func text(v any) string {
	switch x := v.(type) {
	case []byte:
		return string(x)
	case string:
		return x
	case sql.NullString:
		return x.String
	}
	return ""
}
