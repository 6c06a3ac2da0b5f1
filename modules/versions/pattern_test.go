package versions

import (
	"strings"
	"testing"

	"tandem/core/coretest"
)

// TestDownloadURLPatternIsAnOuterBound: every download URL the policy
// takes matches the document's pattern, and what the pattern refuses the
// policy refuses.
func TestDownloadURLPatternIsAnOuterBound(t *testing.T) {
	re := coretest.Pattern(t, DownloadURLPattern)
	for _, s := range []string{"https://apps.apple.com/app/id1", " https://x.io ", "HTTPS://x.io", "https://x.io:8443/a?b#c",
		"http://x.io", "https://", "https:///x", "https://@x.io", "https://u:p@x.io", "https:// x.io", "ftp://x.io",
		"https://x.io/a b", "\u3000https://x.io", "javascript:alert(1)", "https:x.io", "//x.io"} {
		taken := validateDownloadURL(strings.TrimSpace(s)) == nil
		if taken && !re.MatchString(s) {
			t.Errorf("%q: taken, but the pattern refuses it", s)
		}
	}
}
