package httpapi

import (
	"testing"

	"tandem/core"
)

func TestCheckAction(t *testing.T) {
	cases := []struct {
		action string
		known  []string
		want   string // "" accepted
	}{
		{"create", []string{"create"}, ""},
		{"", []string{"create"}, "action is required: create"},
		{"update", []string{"create"}, `unknown action "update": use create`},
		{"", []string{"start", "end"}, "action is required: start, end"},
		{"Start", []string{"start", "end"}, `unknown action "Start": use start, end`},
		{"renew", []string{"create", "subscribe", "update"}, `unknown action "renew": use create, subscribe, update`},
	}
	for _, tc := range cases {
		err := checkAction(tc.action, tc.known...)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%q: %v", tc.action, err)
			}
			continue
		}
		if e := core.As(err); err == nil || e.Kind != core.KindInvalid || e.Code != "invalid_request" || e.Message != tc.want {
			t.Errorf("%q in %v: got %v, want %q", tc.action, tc.known, err, tc.want)
		}
	}
}
