package memories

import (
	"tandem/core"
)

// NoLimit is the MaxMemories of a user whose limits set no memory count.
const NoLimit = -1

// CodeLimitReached is the code of the 403 a create gets when the user keeps
// as many memories as their limits allow.
const CodeLimitReached = "limit_reached"

// RoomFor is the rule of a user who may keep max memories (NoLimit: any
// number): one more while they hold fewer.
func RoomFor(max int) core.Room {
	if max == NoLimit {
		return nil
	}
	return func(held int64) error {
		if held >= int64(max) {
			return errLimit(max)
		}
		return nil
	}
}

func errLimit(max int) error {
	return core.Forbidden(CodeLimitReached, "memories.memoryLimitReached", "memory limit reached: {1|%[1]d memory|%[1]d memories}", max)
}
