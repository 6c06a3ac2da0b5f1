package password

// SetInSlot makes h run f while it holds a hashing slot, so a test can hold
// slots as long as it likes and count them.
func (h *Hasher) SetInSlot(f func()) { h.inSlot = f }
