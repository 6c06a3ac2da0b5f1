package images

import "tandem/core"

// NoLimit is the StorageLimit.Bytes of a user whose limits set no storage.
const NoLimit = -1

// CodeLimitReached is the code of the 403 an upload gets when it would pass
// the user's storage limit.
const CodeLimitReached = "limit_reached"

func errLimit(l StorageLimit) error {
	return core.Forbidden(CodeLimitReached, "images.storageLimitReached", "storage limit reached: %s", l.Label)
}

// Room is the rule of an upload of n bytes by a user whose limit is l: it
// is stored while the bytes the user holds plus n stay within l (NoLimit:
// no rule).
func (l StorageLimit) Room(n int64) core.Room {
	if l.Bytes == NoLimit {
		return nil
	}
	return func(held int64) error {
		if !l.fits(held, n) {
			return errLimit(l)
		}
		return nil
	}
}

// fits reports whether n more bytes keep a user who stores used within l.
func (l StorageLimit) fits(used, n int64) bool {
	return l.Bytes == NoLimit || used+n <= l.Bytes
}
