package tests

import (
	"encoding/json"
	"flag"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
)

// The error codes of the document (Error.code's enum) and the codes the
// server answers across this package are compared both ways at the end of
// the package (TestMain, checkErrorCodes): an answered code missing from the
// enum means a new code went out undocumented; an enum value no test ever
// saw is a documented code nothing proves, unless unreachedCodes says why
// no black-box test can reach it.

// answeredCodes holds the code of every error body checkResponse validated.
var answeredCodes sync.Map // code -> first "METHOD path status" that answered it

// recordErrorCode notes the code of an error answer (status >= 400, JSON).
func recordErrorCode(method, path string, res response) {
	if res.Status < 400 || len(res.Body) == 0 || res.Body[0] != '{' {
		return
	}
	var body struct {
		Success *bool  `json:"success"`
		Code    string `json:"code"`
	}
	if json.Unmarshal(res.Body, &body) != nil || body.Success == nil || *body.Success || body.Code == "" {
		return
	}
	answeredCodes.LoadOrStore(body.Code, fmt.Sprintf("%s %s %d", method, path, res.Status))
}

// unreachedCodes are enum values the black-box tests cannot practically
// provoke, each with the reason. Keep it short: a code that becomes
// reachable belongs in a test, not here.
var unreachedCodes = map[string]string{
	// Fiber answers 408 only when a client stalls past the server's read
	// timeout; the harness's in-process server has none to pass.
	"request_timeout": "needs a read timeout to expire mid-request",
	// The not-kept answer of an Idempotency-Key needs an answer too large
	// to keep for a retry to find: unit-tested in modules/idempotency.
	"idempotency_answer_not_kept": "needs an answer over the kept size",
}

// racedCodes are enum values a test provokes by a race it cannot always
// win: answered in most runs, not in all, so neither their absence nor
// their presence is a finding.
var racedCodes = map[string]string{
	// TestIdempotencyKeyAtOnce accepts, for the requests that lose, either
	// this 409 (the first still runs) or the replay (it already finished).
	"idempotency_in_progress": "only while a concurrent request with the key still runs",
}

// wholePackageRan reports whether every test of the package ran: no -run or
// -skip filter, and no -short.
func wholePackageRan() bool {
	for _, name := range []string{"test.run", "test.skip"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" {
			return false
		}
	}
	if f := flag.Lookup("test.short"); f != nil && f.Value.String() == "true" {
		return false
	}
	return true
}

// documentedErrorCodes is Error.code's enum in the document.
func documentedErrorCodes() ([]string, error) {
	c, err := loadContract()
	if err != nil {
		return nil, err
	}
	ref := c.doc.Components.Schemas["Error"]
	if ref == nil || ref.Value == nil || ref.Value.Properties["code"] == nil {
		return nil, fmt.Errorf("the document has no Error.code")
	}
	var codes []string
	for _, v := range ref.Value.Properties["code"].Value.Enum {
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("Error.code's enum holds %v, not a string", v)
		}
		codes = append(codes, s)
	}
	if len(codes) == 0 {
		return nil, fmt.Errorf("Error.code has no enum")
	}
	return codes, nil
}

// checkErrorCodes compares the answered codes and the enum; the problems
// found, none when they agree. answered maps a code to where it was seen.
func checkErrorCodes(enum []string, answered map[string]string, unreached map[string]string) []string {
	var problems []string
	inEnum := map[string]bool{}
	for _, c := range enum {
		inEnum[c] = true
	}
	var undocumented, unseen, stale []string
	for code, where := range answered {
		if !inEnum[code] {
			undocumented = append(undocumented, fmt.Sprintf("%q (first answered by %s)", code, where))
		}
	}
	for _, code := range enum {
		_, seen := answered[code]
		_, allowed := unreached[code]
		if _, raced := racedCodes[code]; raced {
			continue
		}
		switch {
		case !seen && !allowed:
			unseen = append(unseen, code)
		case seen && allowed:
			stale = append(stale, code)
		}
	}
	for code := range unreached {
		if !inEnum[code] {
			stale = append(stale, code+" (not in the enum)")
		}
	}
	sort.Strings(undocumented)
	sort.Strings(stale)
	if len(undocumented) > 0 {
		problems = append(problems, "error codes answered but not in Error.code's enum (document them in openapi/00-base.json): "+strings.Join(undocumented, ", "))
	}
	if len(unseen) > 0 {
		problems = append(problems, "Error.code's enum lists codes no test answered (test them, or add them to unreachedCodes with the reason): "+strings.Join(unseen, ", "))
	}
	if len(stale) > 0 {
		problems = append(problems, "unreachedCodes lists codes that are answered or not documented; remove them: "+strings.Join(stale, ", "))
	}
	return problems
}

// errorCodesAgree runs checkErrorCodes on what the package answered; false,
// with the problems printed, when they disagree.
func errorCodesAgree() bool {
	enum, err := documentedErrorCodes()
	if err != nil {
		fmt.Println("FAIL: error codes:", err)
		return false
	}
	answered := map[string]string{}
	answeredCodes.Range(func(k, v any) bool { answered[k.(string)] = v.(string); return true })
	problems := checkErrorCodes(enum, answered, unreachedCodes)
	for _, p := range problems {
		fmt.Println("FAIL: error codes:", p)
	}
	return len(problems) == 0
}

// TestErrorCodesCheck proves the end-of-package check itself: a new code
// answered without being documented fails it, as do a documented code
// nothing answers and a stale allowlist entry. It also requires the
// document's enum to hold no duplicate.
func TestErrorCodesCheck(t *testing.T) {
	enum, err := documentedErrorCodes()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, c := range enum {
		if seen[c] {
			t.Errorf("Error.code's enum lists %q twice", c)
		}
		seen[c] = true
	}
	all := map[string]string{}
	for _, c := range enum {
		all[c] = "GET /x 400"
	}
	if p := checkErrorCodes(enum, all, nil); len(p) != 0 {
		t.Errorf("every code answered, none allowed: %v", p)
	}
	withNew := map[string]string{"brand_new_code": "POST /api/x 409"}
	for k, v := range all {
		withNew[k] = v
	}
	if p := checkErrorCodes(enum, withNew, nil); len(p) != 1 || !strings.Contains(p[0], "brand_new_code") {
		t.Errorf("an undocumented code must fail the check, got %v", p)
	}
	delete(all, enum[0])
	if p := checkErrorCodes(enum, all, nil); len(p) != 1 || !strings.Contains(p[0], enum[0]) {
		t.Errorf("a documented code never answered must fail the check, got %v", p)
	}
	if p := checkErrorCodes(enum, all, map[string]string{enum[0]: "why", enum[1]: "stale"}); len(p) != 1 || !strings.Contains(p[0], enum[1]) {
		t.Errorf("an allowlisted code that is answered must fail the check, got %v", p)
	}
}
