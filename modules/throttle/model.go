// Package throttle counts events per subject in fixed time windows: the
// security counters (per-IP request rate, codes sent per e-mail, failed logins)
// that must hold across processes and restarts, so they live in the database.
package throttle

import (
	"crypto/sha256"
	"encoding/hex"
	"time"

	"tandem/core"
)

// key names the counter of subject under r. The subject (an e-mail, an IP) is
// hashed so the counters table holds no personal data and keys have one length.
func key(r core.RateRule, subject string) string {
	sum := sha256.Sum256([]byte(subject))
	return r.Name + ":" + hex.EncodeToString(sum[:16])
}

// window returns the start of the fixed window holding now and when it ends.
func window(r core.RateRule, now time.Time) (start, end time.Time) {
	start = now.Truncate(r.Window)
	return start, start.Add(r.Window)
}
