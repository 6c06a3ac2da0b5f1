package images

import "tandem/core"

// NoLimit is the StorageLimit.Bytes of a user whose limits set no storage.
const NoLimit = -1

// CodeLimitReached is the code of the 403 an upload gets when it would pass
// the user's storage limit; Repository.Create returns it too.
const CodeLimitReached = "limit_reached"

// LimitReached is the error a Repository's Create returns when the upload
// would pass max; the service words it with the limit (errLimit).
func LimitReached() error { return core.Forbidden(CodeLimitReached, "storage limit reached") }

func errLimit(l StorageLimit) error {
	return core.Forbidden(CodeLimitReached, "storage limit reached: "+l.Label)
}

// isLimit reports whether err is a Repository's LimitReached.
func isLimit(err error) bool {
	return core.IsKind(err, core.KindForbidden) && core.As(err).Code == CodeLimitReached
}

// fits reports whether n more bytes keep a user who stores used within l.
func (l StorageLimit) fits(used, n int64) bool {
	return l.Bytes == NoLimit || used+n <= l.Bytes
}
