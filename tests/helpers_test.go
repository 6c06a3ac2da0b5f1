package tests

import (
	"encoding/json"
	"net/url"
	"testing"
)

// user is a verified account with its token.
type user struct{ ID, Token string }

// newUser signs up and verifies an account through the API.
func (h *harness) newUser(email string) user {
	h.t.Helper()
	id, tok := h.signUp(email)
	return user{ID: id, Token: tok}
}

// keyed is a request to an X-API-Key route (partner connections, messages).
func (h *harness) keyed(method, path string, u user, body any) response {
	h.t.Helper()
	return h.do(req{Method: method, Path: path, Token: u.Token, Body: body,
		Headers: map[string]string{"X-API-Key": testAPIKey}})
}

// pair makes a and b partners (a the inviter) through the pairing-code flow,
// which notifies nobody: a link notifies the code's owner, and tests that
// read an inbox should see only what they cause. partners_test.go's
// pairByLink pairs through a connection code.
func (h *harness) pair(a, b user) {
	h.t.Helper()
	h.pairByCodes(a, b)
}

// jsonStr is v as JSON (a string quoted and escaped).
func jsonStr(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// sameJSON compares a decoded value with a JSON shape (see expect).
func sameJSON(t *testing.T, got any, shape string) {
	t.Helper()
	var want any
	if err := json.Unmarshal([]byte(shape), &want); err != nil {
		t.Fatalf("bad shape %s: %v", shape, err)
	}
	b, _ := json.Marshal(got)
	var norm any
	_ = json.Unmarshal(b, &norm)
	if err := match("$", want, norm); err != nil {
		t.Fatalf("%v\ngot: %s", err, b)
	}
}

// setTimezone sets u's profile timezone (an IANA name) through the API.
func setTimezone(t *testing.T, h *harness, u user, tz string) {
	t.Helper()
	expect(t, h.do(req{Method: "PATCH", Path: "/api/users/user/" + u.ID, Token: u.Token,
		Body: map[string]any{"timezone": tz}}), 200, "")
}

// pages follows a list's X-Next-Cursor from its first page: get answers
// one page for the paging query ("limit=N", then "limit=N&cursor=...").
// It returns every page's answer and fails past ten pages.
func pages(t *testing.T, limit int, get func(query string) response) []response {
	t.Helper()
	var out []response
	query := "limit=" + itoa(int64(limit))
	for len(out) < 10 {
		r := get(query)
		expect(t, r, 200, "")
		out = append(out, r)
		next := r.Header.Get("X-Next-Cursor")
		if next == "" {
			return out
		}
		query = "limit=" + itoa(int64(limit)) + "&cursor=" + url.QueryEscape(next)
	}
	t.Fatalf("more than %d pages", len(out))
	return nil
}

// jsonArray decodes a body that is a bare JSON array of objects.
func jsonArray(t testing.TB, r response) []map[string]any {
	t.Helper()
	var out []map[string]any
	if err := json.Unmarshal(r.Body, &out); err != nil {
		t.Fatalf("body is not a JSON array of objects: %v: %s", err, r.Body)
	}
	return out
}

// nullable is s as a JSON string, or null when empty.
func nullable(s string) string {
	if s == "" {
		return "null"
	}
	return `"` + s + `"`
}

// withDates is path with the startDate and endDate query of a date range.
func withDates(path, from, to string) string {
	return path + "?startDate=" + url.QueryEscape(from) + "&endDate=" + url.QueryEscape(to)
}
