package notifications_test

import (
	"reflect"
	"testing"
	"time"

	n "tandem/modules/notifications"
)

// TestDecideRegister: the same token is the same device, another user's
// token is taken as a new device, and the user keeps the newest keep.
func TestDecideRegister(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	dev := func(id, user, token string, at int) n.Device {
		when := t0.Add(time.Duration(at) * time.Minute)
		return n.Device{ID: id, UserID: user, Token: token, Platform: "ios", Provider: "p", CreatedAt: when, UpdatedAt: when}
	}
	d := dev("new", "u1", "tok", 10)
	mine := []n.Device{dev("a", "u1", "t-a", 1), dev("b", "u1", "t-b", 3), dev("c", "u1", "t-c", 2)}
	cases := []struct {
		name   string
		st     n.DeviceState
		keep   int
		forget []string
		save   n.Device
	}{
		{"a new token", n.DeviceState{}, 10, nil, d},
		{"a new token beside others", n.DeviceState{Mine: mine}, 10, nil, d},
		{"the same token again keeps its id and creation time",
			n.DeviceState{Holder: &mine[0], Mine: append([]n.Device{}, mine...)}, 10, nil,
			n.Device{ID: "a", UserID: "u1", Token: "tok", Platform: "ios", Provider: "p", CreatedAt: mine[0].CreatedAt, UpdatedAt: d.UpdatedAt}},
		{"another user's token is forgotten there and is new here",
			n.DeviceState{Holder: &n.Device{ID: "x", UserID: "u2", Token: "tok"}, Mine: mine}, 10, []string{"x"}, d},
		{"beyond keep the least recently registered go", n.DeviceState{Mine: mine}, 2, []string{"c", "a"}, d},
		{"ties go by id", n.DeviceState{Mine: []n.Device{dev("p", "u1", "1", 1), dev("q", "u1", "2", 1)}}, 2, []string{"p"}, d},
		{"the registered device stays, even the oldest", n.DeviceState{Mine: []n.Device{dev("z", "u1", "1", 20)}}, 1, []string{"z"}, d},
		{"re-registering counts once", n.DeviceState{Holder: &mine[1], Mine: mine}, 3, nil,
			n.Device{ID: "b", UserID: "u1", Token: "tok", Platform: "ios", Provider: "p", CreatedAt: mine[1].CreatedAt, UpdatedAt: d.UpdatedAt}},
		{"taken and trimmed", n.DeviceState{Holder: &n.Device{ID: "x", UserID: "u2", Token: "tok"}, Mine: mine}, 1,
			[]string{"x", "b", "c", "a"}, d},
	}
	for _, tc := range cases {
		got := n.DecideRegister(tc.st, d, tc.keep)
		if !reflect.DeepEqual(got.Forget, tc.forget) || got.Save != tc.save {
			t.Errorf("%s: got forget %v save %+v, want %v %+v", tc.name, got.Forget, got.Save, tc.forget, tc.save)
		}
	}
}
