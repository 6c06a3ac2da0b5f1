package httpapi

import "testing"

// TestEndedJSON: a kept answer replays with the newline every answer ends
// with now, also one kept by an earlier version without it; other bodies
// are left as they were.
func TestEndedJSON(t *testing.T) {
	cases := []struct{ contentType, body, want string }{
		{"application/json", `{"success":true}` + "\n", `{"success":true}` + "\n"},
		{"application/json", `{"success":true}`, `{"success":true}` + "\n"},
		{"application/json; charset=utf-8", `[]`, "[]\n"},
		{"application/json", "", ""},
		{"text/plain; charset=utf-8", "Internal Server Error", "Internal Server Error"},
		{"", "x", "x"},
	}
	for _, tc := range cases {
		stored := []byte(tc.body)
		if got := string(endedJSON(tc.contentType, stored)); got != tc.want {
			t.Errorf("%q %q: got %q, want %q", tc.contentType, tc.body, got, tc.want)
		}
		if string(stored) != tc.body {
			t.Errorf("%q: the stored body was changed to %q", tc.body, stored)
		}
	}
}
