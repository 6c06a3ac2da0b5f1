package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"net"
	"strings"

	"github.com/go-sql-driver/mysql"

	"tandem/core"
)

// mapErr translates driver errors into core kinds at the boundary; services
// then choose the spec's codes.
func mapErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, sql.ErrNoRows):
		return core.NotFound("not_found", "not found").Wrap(err)
	case isDuplicate(err):
		return core.Conflict("conflict", "already exists").Wrap(err)
	case isConnection(err):
		return core.Unavailable("unavailable", "the database is unavailable").Wrap(err)
	}
	return core.Internal(err)
}

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
