package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"tandem/adapters/httpapi"
	"tandem/adapters/sqlstore"
	"tandem/adapters/sqlstore/sqltest"
	"tandem/modules/accounts"
	"tandem/modules/admin"
	"tandem/modules/events"
	"tandem/modules/memories"
)

// A limit of the API is a module constant, in its package's Rules; the
// OpenAPI parts name it ("maxLength": "events.MaxTitle") wherever it
// applies, and adapters/httpapi/limits.go writes its value there when it
// merges them. The test below reads the parts as written, so where each
// limit applies is derived, never listed; what no document says is which
// database columns keep a limit's values, and that is limitColumns.

// keptIn names the columns that keep one whole value of a limit.
type keptIn struct {
	cols  []string // table.column
	bytes bool     // the module counts bytes (len), not characters
	// json, for an array kept as one JSON text in cols: the most bytes one
	// item takes there, quotes left out.
	json int
	// value, for a limit no part names (it bounds what the server writes):
	// its constant. A limit the parts name takes its value from its Rules.
	value int
}

// jsonBytesPerChar is the most one character of a free text takes in JSON:
// encoding/json writes <, >, &, U+2028 and U+2029 as \uXXXX.
const jsonBytesPerChar = 6

// limitColumns are the columns that keep each limit's values, by the
// limit's name; a limit kept in no column has no row.
var limitColumns = map[string]keptIn{
	// an administrator's e-mail: who handled feedback, who changed what
	"accounts.MaxEmail":       {bytes: true, cols: []string{"accounts.email", "mail_outbox.recipient", "feedback.handled_by", "audit_log.actor"}},
	"accounts.MaxDisplayName": {cols: []string{"accounts.display_name"}},
	"accounts.MaxNickname":    {cols: []string{"accounts.nickname"}},
	"accounts.MaxTimezone":    {bytes: true, cols: []string{"accounts.timezone"}},
	"core.MaxLocale":          {bytes: true, cols: []string{"accounts.locale"}},
	"accounts.MaxUserAgent":   {value: accounts.MaxUserAgent, bytes: true, cols: []string{"auth_tokens.user_agent"}}, // a header, clipped

	"admin.MaxField": {value: admin.MaxField, bytes: true, cols: []string{"audit_log.action", "audit_log.target"}}, // clipped
	"admin.MaxState": {value: admin.MaxState, bytes: true, cols: []string{"audit_log.before_state", "audit_log.after_state"}},

	"events.MaxTitle":        {cols: []string{"events.title"}},
	"events.MaxDescription":  {cols: []string{"events.description"}},
	"events.MaxLocation":     {cols: []string{"events.location"}},
	"events.MaxParticipants": {json: events.MaxParticipantID * jsonBytesPerChar, cols: []string{"events.participants"}},

	"feedback.MaxMessage": {cols: []string{"feedback.message"}},

	"flags.MaxKey":         {bytes: true, cols: []string{"feature_flags.flag_key", "feature_flag_users.flag_key"}},
	"flags.MaxName":        {cols: []string{"feature_flags.name"}},
	"flags.MaxDescription": {cols: []string{"feature_flags.description"}},
	"flags.MaxCreatedBy":   {cols: []string{"feature_flags.created_by"}},
	"flags.MaxUserID":      {cols: []string{"feature_flag_users.user_id"}}, // a row per listed user

	"memories.MaxTitle":       {cols: []string{"memories.title"}},
	"memories.MaxDescription": {cols: []string{"memories.description"}},
	// Image addresses are ASCII addresses of the files route, which JSON
	// writes as they are.
	"memories.MaxImages": {json: memories.MaxImageURL, cols: []string{"memories.images"}},

	"messages.MaxBody": {cols: []string{"messages.body"}},
	"moods.MaxNote":    {cols: []string{"moods.note"}},

	"notifications.MaxTitle":   {cols: []string{"notifications.title"}},
	"notifications.MaxMessage": {cols: []string{"notifications.message"}},
	"notifications.MaxToken":   {bytes: true, cols: []string{"notification_devices.token"}},

	"partners.MaxConnectionCode": {bytes: true, cols: []string{"partner_connections.code", "partner_connections.code_key"}},
	"partners.PairingCodeLength": {bytes: true, cols: []string{"pairing_codes.code"}},

	"premium.MaxPlan":      {cols: []string{"premium_subscriptions.plan"}},
	"premium.MaxBillingID": {bytes: true, cols: []string{"premium_subscriptions.billing_id"}},
	"premium.MaxProductID": {bytes: true, cols: []string{"premium_subscriptions.product_id"}},

	"questions.MaxText":     {cols: []string{"question_messages.body"}},
	"questions.MaxReaction": {cols: []string{"question_messages.reaction"}},

	"versions.MaxUpdateMessage": {cols: []string{"version_policies.update_message"}},
	"versions.MaxReleaseNotes":  {cols: []string{"version_policies.release_notes"}},
	"versions.MaxDownloadURL":   {bytes: true, cols: []string{"version_policies.download_url"}},
}

// docLimitKeywords are the schema keywords that bound a value.
var docLimitKeywords = map[string]bool{
	"maxLength": true, "minLength": true, "maxItems": true, "minItems": true,
	"maximum": true, "minimum": true, "exclusiveMaximum": true, "exclusiveMinimum": true,
	"maxProperties": true, "minProperties": true,
}

// bareLimits are the numbers a part may write as they are, by keyword and
// value, with why: facts of counting, no package's rule. Any other number
// at a limit keyword is a rule stated again, and must be named instead.
var bareLimits = map[string]string{
	"minLength 1":     "not empty",
	"minItems 1":      "not empty",
	"minProperties 1": "not empty",
	"maxProperties 0": "an empty object",
	"minimum 0":       "not negative",
	"minimum 1":       "at least one (a page's size, a position, a count)",
}

// countedPatterns are the patterns a part may write with a count ({n} or
// {m,n}) rather than name a package's pattern, by part and place, with why.
var countedPatterns = map[string]string{
	"feedback.json#/components/schemas/Feedback/properties/createdAt/pattern": "dd/mm/yyyy: a date's digits, of the answer only",
}

// patternCount finds a count in a regular expression.
var patternCount = regexp.MustCompile(`\{\d+(,\d*)?\}`)

// namedRule is one place where a part names a rule.
type namedRule struct {
	part, at, keyword, name string
}

// partRules walks the parts as written: the places that name a limit or a
// pattern, and an error for every number or counted pattern that states a
// rule instead of naming it.
func partRules(t *testing.T) (limits, patterns []namedRule) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "adapters", "httpapi", "openapi", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no parts of the document (%v)", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var part any
		if err := json.Unmarshal(b, &part); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		name := filepath.Base(f)
		walkPart(part, "", func(at, k string, v any) {
			where := name + "#" + at + "/" + k
			switch s, isName := v.(string); {
			case k == "pattern" && isName:
				if _, named := httpapi.DocumentPattern(s); named {
					patterns = append(patterns, namedRule{name, at + "/" + k, k, s})
				} else if patternCount.MatchString(s) && countedPatterns[where] == "" {
					t.Errorf("%s: %q counts characters itself: name its package's pattern (a Rules' Patterns), built from the limit's constant", where, s)
				}
			case !docLimitKeywords[k]:
			case isName:
				limits = append(limits, namedRule{name, at + "/" + k, k, s})
			default:
				if n, ok := v.(float64); !ok || bareLimits[k+" "+strconv.FormatFloat(n, 'f', -1, 64)] == "" {
					t.Errorf("%s: %v states a limit: name its module constant (\"%s\": \"module.MaxX\", in the module's Rules)", where, v, k)
				}
			}
		})
	}
	return limits, patterns
}

// walkPart calls f with every key and value of every object in v, and the
// JSON pointer of that object.
func walkPart(v any, at string, f func(at, k string, v any)) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if _, isObject := x[k].(map[string]any); !isObject { // else a property named so
				f(at, k, x[k])
			}
			walkPart(x[k], at+"/"+strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1"), f)
		}
	case []any:
		for i, c := range x {
			walkPart(c, at+"/"+strconv.Itoa(i), f)
		}
	}
}

// docAt is the value at pointer p of the decoded document.
func docAt(doc any, p string) (any, bool) {
	v := doc
	for _, tok := range strings.Split(p, "/")[1:] {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
		if v == nil {
			return nil, false
		}
	}
	return v, true
}

// TestOpenAPILimitsMatchModulesAndColumns: the parts state no limit as a
// number, only by its name; the merged document holds each named limit's
// constant (and each named pattern) at every place a part names it; and
// every column that keeps such a value is wide enough for the largest one,
// in characters of utf8mb4 (MySQL, from information_schema after every
// migration; SQLite has no sizes, so there each column must merely exist).
func TestOpenAPILimitsMatchModulesAndColumns(t *testing.T) {
	parallel(t)
	var doc any
	if err := json.Unmarshal(httpapi.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	limits, patterns := partRules(t)
	if len(limits) < 50 || len(patterns) < 50 {
		t.Fatalf("the parts name %d limits and %d patterns: the walk lost them", len(limits), len(patterns))
	}
	named := map[string]bool{}
	for _, l := range limits {
		named[l.name] = true
		want, ok := httpapi.DocumentLimit(l.name)
		if !ok {
			t.Errorf("%s#%s: %q is no limit of a package's Rules", l.part, l.at, l.name)
			continue
		}
		if got, _ := docAt(doc, l.at); got != float64(want) {
			t.Errorf("%s = %d, but the document states %v at %s (named in %s)", l.name, want, got, l.at, l.part)
		}
	}
	for _, p := range patterns {
		want, _ := httpapi.DocumentPattern(p.name)
		if got, _ := docAt(doc, p.at); got != want {
			t.Errorf("%s is %q, but the document states %q at %s (named in %s)", p.name, want, got, p.at, p.part)
		}
	}

	values := map[string]int{}
	for name, k := range limitColumns {
		v, inRules := httpapi.DocumentLimit(name)
		switch {
		case inRules && k.value != 0:
			t.Errorf("limitColumns[%s] states a value, but its package's Rules hold it (%d): leave it out", name, v)
		case !inRules && k.value == 0:
			t.Errorf("limitColumns[%s]: no package's Rules hold it: add it there, or state its constant as value", name)
		case !inRules && named[name]:
			t.Errorf("limitColumns[%s]: the parts name it, yet no Rules hold it", name)
		case !inRules:
			v = k.value
		}
		values[name] = v
	}

	for _, d := range sqltest.Dialects(t) {
		t.Run(string(d), func(t *testing.T) {
			parallel(t)
			db := sqltest.Open(t, d)
			cols, err := columnsOf(context.Background(), db)
			if err != nil {
				t.Fatal(err)
			}
			for name, k := range limitColumns {
				for _, col := range k.cols {
					c, ok := cols[col]
					if !ok {
						t.Errorf("%s: no column %s after the migrations", name, col)
						continue
					}
					if d == sqlstore.MySQL {
						if msg := c.refuses(values[name], k); msg != "" {
							t.Errorf("%s = %d, but %s %s: widen it in a new migration (migrations/mysql)", name, values[name], col, msg)
						}
					}
				}
			}
		})
	}
}

// column is what information_schema says of one column.
type column struct {
	dataType string
	charset  string
	chars    int64 // CHARACTER_MAXIMUM_LENGTH
	octets   int64 // CHARACTER_OCTET_LENGTH
	maxlen   int64 // the most bytes one character of its charset takes
}

// refuses says why c cannot keep the largest value of a limit of value
// kept as k says, or "".
func (c column) refuses(value int, k keptIn) string {
	text := strings.HasSuffix(c.dataType, "text")
	if c.dataType != "varchar" && c.dataType != "char" && !text {
		return "is " + c.dataType + ", not text"
	}
	if k.json == 0 && !k.bytes {
		switch {
		case c.charset != "utf8mb4":
			return "is " + c.charset + ", which cannot keep every character"
		case !text && c.chars < int64(value), text && c.octets < int64(value)*c.maxlen:
			return fmt.Sprintf("is %s keeping %d characters (%d bytes)", c.dataType, min(c.chars, c.octets/c.maxlen), c.octets)
		}
		return ""
	}
	need := int64(value)
	if k.json > 0 {
		need = int64(value)*int64(k.json+3) + 1 // [ "item", ... ]
	}
	if !text && c.chars < need || text && c.octets < need {
		return fmt.Sprintf("is %s keeping %d bytes, and its largest value takes %d", c.dataType, min(c.chars, c.octets), need)
	}
	return ""
}

// columnsOf lists the database's columns by table.column.
func columnsOf(ctx context.Context, db *sqlstore.DB) (map[string]column, error) {
	out := map[string]column{}
	if db.Dialect == sqlstore.SQLite {
		var tables []string
		if err := db.SelectContext(ctx, &tables, "SELECT name FROM sqlite_master WHERE type = 'table'"); err != nil {
			return nil, err
		}
		for _, table := range tables {
			var names []string
			if err := db.SelectContext(ctx, &names, "SELECT name FROM pragma_table_info(?)", table); err != nil {
				return nil, err
			}
			for _, n := range names {
				out[table+"."+n] = column{}
			}
		}
		return out, nil
	}
	rows, err := db.QueryContext(ctx, `SELECT c.TABLE_NAME, c.COLUMN_NAME, c.DATA_TYPE, COALESCE(c.CHARACTER_SET_NAME, ''),
		COALESCE(c.CHARACTER_MAXIMUM_LENGTH, 0), COALESCE(c.CHARACTER_OCTET_LENGTH, 0), COALESCE(s.MAXLEN, 1)
		FROM information_schema.COLUMNS c
		LEFT JOIN information_schema.CHARACTER_SETS s ON s.CHARACTER_SET_NAME = c.CHARACTER_SET_NAME
		WHERE c.TABLE_SCHEMA = DATABASE()`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var table, name string
		var c column
		if err := rows.Scan(&table, &name, &c.dataType, &c.charset, &c.chars, &c.octets, &c.maxlen); err != nil {
			return nil, err
		}
		c.dataType = strings.ToLower(c.dataType)
		out[table+"."+name] = c
	}
	return out, rows.Err()
}
