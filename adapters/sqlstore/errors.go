package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"net"
	"regexp"
	"strings"
	"syscall"

	"github.com/go-sql-driver/mysql"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"tandem/core"
)

// mapErr translates driver errors into core kinds at the boundary; services
// then choose the spec's codes.
func mapErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, sql.ErrNoRows):
		return core.NotFound("not_found", "memory.notFound", "not found").Wrap(err)
	case isDuplicate(err):
		return core.Conflict("conflict", "memory.alreadyExists", "already exists").Wrap(err)
	case isFull(err): // before isConnection: a syscall.Errno, ENOSPC too, passes for a net.Error
		return errDiskFull().Wrap(err)
	case isConnection(err):
		return core.Unavailable("unavailable", "httpapi.databaseUnavailable", "the database is unavailable").Wrap(err)
	}
	return core.Internal(err)
}

// errDiskFull is the 507 of a write the database had no room for: nothing
// of it is kept, and it may succeed once space is freed.
func errDiskFull() *core.Error {
	return core.InsufficientStorage("insufficient_storage", "sqlstore.noRoomLeftStoreTry", "no room left to store this; try again later")
}

// isFull reports an error that means the database's disk (or table space)
// has no room left.
//
// SQLite: SQLITE_FULL, which its file layer returns for a write that met
// ENOSPC (a short write included), and SQLITE_IOERR_SHMSIZE / _SHMMAP,
// which only a -shm file that cannot grow gives (on a full tmpfs). The
// other I/O errors (a failed fsync, a bad sector) carry no errno through
// the driver and stay 500: they are not known to be a matter of space.
//
// MySQL/MariaDB: 1114 ER_RECORD_FILE_FULL (the table is full), 1021
// ER_DISK_FULL, and the write errors whose OS error is 28 (ENOSPC) or 122
// (EDQUOT): 3 EE_WRITE "Error writing file ... (Errcode: 28 ...)", 1026
// ER_ERROR_ON_WRITE "(errno: 28 ...)", 1030 ER_GET_ERRNO "Got error 28
// from storage engine".
func isFull(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() {
		case sqlite3.SQLITE_IOERR_SHMSIZE, sqlite3.SQLITE_IOERR_SHMMAP:
			return true
		}
		return se.Code()&0xff == sqlite3.SQLITE_FULL // any extended code of SQLITE_FULL
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		case 1114, 1021:
			return true
		case 3, 1026, 1030:
			return osErrNoSpace.MatchString(me.Message)
		}
		return false
	}
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// osErrNoSpace finds errno 28 or 122 in a MySQL write error's text, in the
// forms MySQL and MariaDB print it.
var osErrNoSpace = regexp.MustCompile(`(?i)(errcode: |errno: |error )(28|122)\b|no space left on device|quota exceeded`)

func isDuplicate(err error) bool {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Number == 1062
	}
	// modernc reports SQLITE_CONSTRAINT_UNIQUE / _PRIMARYKEY in the text.
	msg := err.Error()
	return strings.Contains(msg, "UNIQUE constraint failed") || strings.Contains(msg, "PRIMARY KEY constraint failed")
}

func isConnection(err error) bool {
	var ne net.Error
	return errors.Is(err, driver.ErrBadConn) || errors.Is(err, mysql.ErrInvalidConn) ||
		errors.Is(err, sql.ErrConnDone) || errors.Is(err, context.DeadlineExceeded) ||
		errors.As(err, &ne) || strings.Contains(err.Error(), "database is closed")
}

func isNotFound(err error) bool { return core.IsKind(err, core.KindNotFound) }
