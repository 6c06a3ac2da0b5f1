package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jmoiron/sqlx"

	"tandem/core"
)

// A full disk on MySQL or MariaDB, in each form the servers report it, is
// 507 insufficient_storage; a write error for another reason is not.
func TestMapErrFullDiskIsInsufficientStorage(t *testing.T) {
	t.Parallel()
	cases := []struct {
		err  error
		kind core.Kind
	}{
		{&mysql.MySQLError{Number: 1114, Message: "The table 'messages' is full"}, core.KindInsufficientStorage},
		{&mysql.MySQLError{Number: 1021, Message: "Disk full (/tmp/#sql_1_0.MAI); waiting for someone to free some space... (errno: 28 \"No space left on device\")"}, core.KindInsufficientStorage},
		{&mysql.MySQLError{Number: 3, Message: "Error writing file './tandem/messages.ibd' (Errcode: 28 \"No space left on device\")"}, core.KindInsufficientStorage},
		{&mysql.MySQLError{Number: 3, Message: "Error writing file '/var/tmp/ML1' (Errcode: 28)"}, core.KindInsufficientStorage},
		{&mysql.MySQLError{Number: 1026, Message: "Error writing file 'binlog.000003' (errno: 28 - No space left on device)"}, core.KindInsufficientStorage},
		{&mysql.MySQLError{Number: 1030, Message: "Got error 28 \"No space left on device\" from storage engine InnoDB"}, core.KindInsufficientStorage},
		{&mysql.MySQLError{Number: 3, Message: "Error writing file '/q' (Errcode: 122 \"Disk quota exceeded\")"}, core.KindInsufficientStorage},
		{fmt.Errorf("commit: %w", &mysql.MySQLError{Number: 1114, Message: "The table 'x' is full"}), core.KindInsufficientStorage},
		{&fs.PathError{Op: "write", Path: "/data/x", Err: syscall.ENOSPC}, core.KindInsufficientStorage},
		// not a matter of space
		{&mysql.MySQLError{Number: 3, Message: "Error writing file '/q' (Errcode: 13 \"Permission denied\")"}, core.KindInternal},
		{&mysql.MySQLError{Number: 1030, Message: "Got error 280 from storage engine"}, core.KindInternal},
		{&mysql.MySQLError{Number: 1062, Message: "Duplicate entry 'a' for key 'PRIMARY'"}, core.KindConflict},
		{&mysql.MySQLError{Number: 1213, Message: "Deadlock found"}, core.KindInternal},
		{errors.New("disk I/O error (10)"), core.KindInternal},
	}
	for _, tc := range cases {
		got := mapErr(tc.err)
		if !core.IsKind(got, tc.kind) {
			t.Errorf("%v: kind %v, want %v", tc.err, core.KindOf(got), tc.kind)
		}
		if tc.kind == core.KindInsufficientStorage {
			if e := core.As(got); e.Code != "insufficient_storage" || !errors.Is(got, tc.err) {
				t.Errorf("%v: %q (cause kept: %v)", tc.err, e.Code, errors.Is(got, tc.err))
			}
		}
	}
}

// fullSQLite opens a SQLite database of one connection (PRAGMA
// max_page_count is the connection's) holding table g(k, v) and a few rows,
// grown to its page limit: the next row that needs a page meets SQLITE_FULL
// as a full disk would give it. room lifts the limit again.
func fullSQLite(t *testing.T) (d *DB, ctx context.Context, room func()) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	d, err := Open(ctx, Config{Dialect: SQLite, DSN: filepath.Join(t.TempDir(), "full.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	d.SetMaxOpenConns(1)
	d.stmts.close()
	d.stmts = nil // it prepares on a connection of its own
	if _, err := d.ExecContext(ctx, "CREATE TABLE g (k TEXT PRIMARY KEY, v BLOB)"); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"a", "b"} {
		if err := d.inTx(ctx, insertBlob(d, ctx, k)); err != nil {
			t.Fatal(err)
		}
	}
	var pages int
	if err := d.GetContext(ctx, &pages, "PRAGMA page_count"); err != nil {
		t.Fatal(err)
	}
	if _, err := d.ExecContext(ctx, fmt.Sprintf("PRAGMA max_page_count = %d", pages)); err != nil {
		t.Fatal(err)
	}
	return d, ctx, func() {
		if _, err := d.ExecContext(ctx, "PRAGMA max_page_count = 1000000"); err != nil {
			t.Fatal(err)
		}
	}
}

// insertBlob stores row k with 8 KiB: it needs pages of its own.
func insertBlob(d *DB, ctx context.Context, k string) func(tx *sqlx.Tx) error {
	return func(tx *sqlx.Tx) error {
		return d.exec(ctx, tx, d.sb.Insert("g").Columns("k", "v").Values(k, []byte(strings.Repeat("x", 8<<10))))
	}
}

func integrityOK(t *testing.T, d *DB, ctx context.Context) {
	t.Helper()
	var res string
	if err := d.GetContext(ctx, &res, "PRAGMA integrity_check"); err != nil || res != "ok" {
		t.Fatalf("integrity_check: %q %v", res, err)
	}
}

// SQLITE_FULL is 507 insufficient_storage; it marks the write path down
// (WriteProblem) while reads work; the first write that succeeds once there
// is room clears it; nothing of the refused write is kept.
func TestSQLiteFullDiskIsInsufficientStorageUntilAWriteSucceeds(t *testing.T) {
	t.Parallel()
	d, ctx, room := fullSQLite(t)
	if err := d.WriteProblem(); err != nil {
		t.Fatalf("before any refusal: %v", err)
	}
	err := d.inTx(ctx, insertBlob(d, ctx, "c"))
	if e := core.As(err); e.Kind != core.KindInsufficientStorage || e.Code != "insufficient_storage" {
		t.Fatalf("write on a full database: %v", err)
	}
	if !strings.Contains(err.Error(), "database or disk is full") {
		t.Fatalf("the cause is lost: %v", err)
	}
	// a single statement of its own (not in inTx) too
	err = d.exec(ctx, d, d.sb.Insert("g").Columns("k", "v").Values("d", []byte(strings.Repeat("y", 8<<10))))
	if !core.IsKind(err, core.KindInsufficientStorage) {
		t.Fatalf("statement on a full database: %v", err)
	}
	if p := d.WriteProblem(); !core.IsKind(p, core.KindInsufficientStorage) {
		t.Fatalf("write problem: %v", p)
	}
	if got := storedKeys(t, d, ctx); strings.Join(got, ",") != "a,b" {
		t.Fatalf("reads on a full database: %v", got)
	}
	// a write that fails for another reason says nothing about space
	if err := d.inTx(ctx, insertKeys(d, ctx, "a")); !core.IsKind(err, core.KindConflict) || d.WriteProblem() == nil {
		t.Fatalf("conflict: %v, write problem %v", err, d.WriteProblem())
	}
	room()
	if err := d.inTx(ctx, insertBlob(d, ctx, "c")); err != nil {
		t.Fatalf("write with room again: %v", err)
	}
	if p := d.WriteProblem(); p != nil {
		t.Fatalf("after a write succeeded: %v", p)
	}
	if got := storedKeys(t, d, ctx); strings.Join(got, ",") != "a,b,c" {
		t.Fatalf("stored %v", got)
	}
	integrityOK(t, d, ctx)
}

// The write path is reported down for a while after the last refusal, not
// for ever: an idle service whose disk was freed becomes ready again.
func TestFullMarkLapses(t *testing.T) {
	t.Parallel()
	m := fullMark{hold: 50 * time.Millisecond}
	m.note(errDiskFull())
	if !m.recent() {
		t.Fatal("not marked")
	}
	time.Sleep(60 * time.Millisecond)
	if m.recent() {
		t.Fatal("still marked after the hold")
	}
	m.note(errDiskFull())
	m.note(nil)
	if m.recent() {
		t.Fatal("a write that succeeded did not clear it")
	}
}

// A group whose members meet a full disk: each is answered 507 once and
// runs once at most (SQLite ends the shared transaction on SQLITE_FULL; the
// members are not each tried again on the same disk), nothing is kept, and
// the next write, with room, commits.
func TestGroupCommitOnAFullDiskAnswersEachMemberOnce(t *testing.T) {
	t.Parallel()
	d, ctx, room := fullSQLite(t)
	runs := make([]int, 3)
	var members []*member
	for i := range runs {
		write := insertBlob(d, ctx, fmt.Sprint("m", i))
		members = append(members, &member{ctx: ctx, fn: func(tx *sqlx.Tx) error { runs[i]++; return write(tx) }})
	}
	inOneGroup(t, d, members)
	for i, m := range members {
		if !core.IsKind(m.err, core.KindInsufficientStorage) || runs[i] > 1 {
			t.Errorf("member %d: %v after %d runs", i, m.err, runs[i])
		}
	}
	if got := storedKeys(t, d, ctx); strings.Join(got, ",") != "a,b" {
		t.Fatalf("stored %v", got)
	}
	room()
	if err := d.inTx(ctx, insertBlob(d, ctx, "c")); err != nil {
		t.Fatal(err)
	}
	integrityOK(t, d, ctx)
}
