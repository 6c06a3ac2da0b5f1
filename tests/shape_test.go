package tests

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
)

// expect checks the status and the body against a shape: JSON in which the
// strings "<string>", "<number>", "<bool>", "<null>", "<any>" and "<array>"
// match any value of that type, and everything else must match exactly.
// Objects must have exactly the keys of the shape: a missing or an extra field fails.
func expect(t testing.TB, r response, status int, shape string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d; body %s", r.Status, status, r.Body)
	}
	if shape == "" {
		return
	}
	var want, got any
	if err := json.Unmarshal([]byte(shape), &want); err != nil {
		t.Fatalf("bad shape %q: %v", shape, err)
	}
	if err := json.Unmarshal(r.Body, &got); err != nil {
		t.Fatalf("body is not JSON: %s", r.Body)
	}
	if err := match("$", want, got); err != nil {
		t.Fatalf("%v\nbody: %s", err, r.Body)
	}
}

func match(path string, want, got any) error {
	if s, ok := want.(string); ok && strings.HasPrefix(s, "<") && strings.HasSuffix(s, ">") {
		return matchType(path, s, got)
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: want object, got %T", path, got)
		}
		if kw, kg := keys(w), keys(g); kw != kg {
			return fmt.Errorf("%s: keys %s, want %s", path, kg, kw)
		}
		for k := range w {
			if err := match(path+"."+k, w[k], g[k]); err != nil {
				return err
			}
		}
		return nil
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return fmt.Errorf("%s: want array of %d, got %v", path, len(w), got)
		}
		for i := range w {
			if err := match(fmt.Sprintf("%s[%d]", path, i), w[i], g[i]); err != nil {
				return err
			}
		}
		return nil
	}
	if fmt.Sprint(want) != fmt.Sprint(got) || fmt.Sprintf("%T", want) != fmt.Sprintf("%T", got) {
		return fmt.Errorf("%s: got %v (%T), want %v (%T)", path, got, got, want, want)
	}
	return nil
}

func matchType(path, placeholder string, got any) error {
	ok := false
	switch placeholder {
	case "<any>":
		ok = true
	case "<string>":
		_, ok = got.(string)
		ok = ok && got != ""
	case "<number>":
		_, ok = got.(float64)
	case "<bool>":
		_, ok = got.(bool)
	case "<null>":
		ok = got == nil
	case "<array>":
		_, ok = got.([]any)
	default:
		return fmt.Errorf("%s: unknown placeholder %s", path, placeholder)
	}
	if !ok {
		return fmt.Errorf("%s: got %v (%T), want %s", path, got, got, placeholder)
	}
	return nil
}

func keys(m map[string]any) string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ",")
}
