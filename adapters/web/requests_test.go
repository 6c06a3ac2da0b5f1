package web

import (
	"strings"
	"testing"
)

func TestValidRequestID(t *testing.T) {
	cases := map[string]bool{
		"abc-123":                  true,
		"A.b_C-9":                  true,
		strings.Repeat("z", 64):    true,
		"":                         false,
		strings.Repeat("z", 65):    false,
		"abc\r\nX-Evil: 1":         false,
		"abc def":                  false,
		"<script>":                 false,
		"a/b":                      false,
		"abc%0d%0a":                false,
		"ünïcode":                  false,
		"tab\there":                false,
		"semi;colon":               false,
		"0123456789abcdef01234567": true,
	}
	for id, want := range cases {
		if got := validRequestID(id); got != want {
			t.Errorf("validRequestID(%q) = %v, want %v", id, got, want)
		}
	}
}
