package httpapi

import (
	"testing"

	"tandem/modules/flags"
)

func TestReasonMessages(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, r := range []flags.Reason{flags.ReasonUnknown, flags.ReasonDisabled, flags.ReasonDenied, flags.ReasonAllowed,
		flags.ReasonPlatform, flags.ReasonPremium, flags.ReasonRolledOut, flags.ReasonNotRolledOut} {
		m := reasonMessage(r)
		if m == "" || seen[m] {
			t.Fatalf("%q: message %q", r, m)
		}
		seen[m] = true
	}
}
