package notifications

import (
	"cmp"
	"slices"
)

// DeviceState is what a registration decision reads, inside the
// transaction that writes its change (Repository.RegisterDevice): the
// device that holds the token, whoever's it is (nil when none), and the
// registering user's devices.
type DeviceState struct {
	Holder *Device
	Mine   []Device
}

// DeviceChange is what a registration writes: the devices of Forget are
// deleted, then Save is stored under its token.
type DeviceChange struct {
	Forget []string
	Save   Device
}

// DecideRegister is the registration rule for d, a new device of
// d.UserID: the same token again is the same device (its id and creation
// time kept, the rest d's); a token another user holds leaves that user's
// device, which is forgotten, and becomes d under d's new id (the old id is
// never handed to the new owner). Then the user keeps the keep most
// recently registered devices, d among them: the others are forgotten.
func DecideRegister(st DeviceState, d Device, keep int) DeviceChange {
	var change DeviceChange
	if h := st.Holder; h != nil {
		if h.UserID == d.UserID {
			d.ID, d.CreatedAt = h.ID, h.CreatedAt
		} else {
			change.Forget = append(change.Forget, h.ID)
		}
	}
	others := slices.DeleteFunc(slices.Clone(st.Mine), func(o Device) bool { return o.ID == d.ID || o.Token == d.Token })
	slices.SortFunc(others, NewerDevice)
	for _, old := range others[min(max(keep-1, 0), len(others)):] {
		change.Forget = append(change.Forget, old.ID)
	}
	change.Save = d
	return change
}

// NewerDevice orders devices most recently registered first: UpdatedAt,
// then id, descending (the order of Repository.Devices).
func NewerDevice(a, b Device) int {
	if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
		return c
	}
	return cmp.Compare(b.ID, a.ID)
}
