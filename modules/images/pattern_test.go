package images_test

import (
	"strings"
	"testing"

	"tandem/core/coretest"
	"tandem/modules/images"
)

// TestKeyPatternIsParseKey: the document's key pattern takes exactly the
// keys ParseKey takes, and each such key's address matches URLPattern.
func TestKeyPatternIsParseKey(t *testing.T) {
	hex := strings.Repeat("0a", 16)
	owner := strings.Repeat("A", 64)
	keys := []string{"u/x/" + hex + ".jpg", "u/x/" + hex + ".png", "u/x/" + hex + ".webp", "u/x/" + hex + ".gif",
		"u/" + owner + "/" + hex + ".jpg", "u/" + owner + "A/" + hex + ".jpg", "u//" + hex + ".jpg", "u/x/" + hex[:31] + ".jpg",
		"u/x/" + strings.ToUpper(hex) + ".jpg", "u/x/" + hex + "0.jpg", "u/x.y/" + hex + ".jpg", "v/x/" + hex + ".jpg",
		"u/x/" + hex + ".jpg/..", "/u/x/" + hex + ".jpg", "u/x/../" + hex + ".jpg", "u/a-b_C9/" + hex + ".jpg"}
	rule := func(k string) bool { _, _, ok := images.ParseKey(k); return ok }
	coretest.SamePattern(t, images.KeyPattern, 0, rule, []rune{'u', '/', 'x'}, 4, keys...)
	url := coretest.Pattern(t, images.URLPattern)
	for _, k := range keys {
		if rule(k) && (!url.MatchString("http://localhost:8080/files/"+k) || !url.MatchString("https://tandem.example/app/files/"+k)) {
			t.Errorf("the address of %q does not match URLPattern", k)
		}
	}
}
