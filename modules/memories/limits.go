package memories

import (
	"strconv"

	"tandem/core"
)

// NoLimit is the MaxMemories of a user whose limits set no memory count.
const NoLimit = -1

// CodeLimitReached is the code of the 403 a create gets when the user keeps
// as many memories as their limits allow; Repository.Create returns it too.
const CodeLimitReached = "limit_reached"

// LimitReached is the error a Repository's Create returns when the user
// already has max memories; the service words it with the limit (errLimit).
func LimitReached() error { return core.Forbidden(CodeLimitReached, "memory limit reached") }

func errLimit(max int) error {
	unit := " memories"
	if max == 1 {
		unit = " memory"
	}
	return core.Forbidden(CodeLimitReached, "memory limit reached: "+strconv.Itoa(max)+unit)
}

// isLimit reports whether err is a Repository's LimitReached.
func isLimit(err error) bool {
	return core.IsKind(err, core.KindForbidden) && core.As(err).Code == CodeLimitReached
}
