package core

// Room is a module's rule on whether one more thing may join the held ones
// (a user's memories, the bytes of their images, the feature flags): the
// repository counts or sums what is held inside the transaction that adds
// it and asks Room, so concurrent adds cannot pass the rule. A non-nil
// error refuses the add, and nothing is written. A nil Room is no rule.
type Room func(held int64) error

// Allows asks r, nil always allowing.
func (r Room) Allows(held int64) error {
	if r == nil {
		return nil
	}
	return r(held)
}
