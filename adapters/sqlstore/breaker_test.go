package sqlstore

import (
	"errors"
	"testing"

	"go.uber.org/zap"
)

func TestBreakerOpensAfterTwoFailedProbesAndClosesOnTheFirstAnswer(t *testing.T) {
	t.Parallel()
	down := errors.New("i/o timeout")
	cases := []struct {
		probes []error
		open   bool
	}{
		{nil, false},
		{[]error{down}, false},                       // one miss is not an outage
		{[]error{down, down}, true},                  // two in a row
		{[]error{down, nil, down}, false},            // not in a row
		{[]error{down, down, down, nil}, false},      // the first answer closes it
		{[]error{down, down, nil, down, down}, true}, // and it opens again
	}
	for _, tc := range cases {
		b := &Breaker{trips: 2, log: zap.NewNop()}
		for _, err := range tc.probes {
			b.observe(err)
		}
		if b.Open() != tc.open {
			t.Fatalf("%v: open %v", tc.probes, b.Open())
		}
	}
}
