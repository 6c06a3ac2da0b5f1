package sqlstore_test

import (
	"context"
	"database/sql"
	"strings"
	"sync"
	"testing"

	"tandem/adapters/sqlstore"
	"tandem/core"
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
		}
	})
	return db
}

// explainedQueries holds "dialect query" once EXPLAINed.
var explainedQueries sync.Map

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
