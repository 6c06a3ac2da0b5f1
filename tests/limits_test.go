package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"tandem/adapters/httpapi"
	"tandem/adapters/sqlstore"
	"tandem/adapters/sqlstore/sqltest"
	"tandem/core"
	"tandem/modules/accounts"
	"tandem/modules/admin"
	"tandem/modules/events"
	"tandem/modules/feedback"
	"tandem/modules/flags"
	"tandem/modules/idempotency"
	"tandem/modules/images"
	"tandem/modules/memories"
	"tandem/modules/messages"
	"tandem/modules/moods"
	"tandem/modules/notifications"
	"tandem/modules/partners"
	"tandem/modules/premium"
	"tandem/modules/questions"
	"tandem/modules/relationship"
	"tandem/modules/versions"
)

// apiLimit is one limit of the API, stated once as a module constant: the
// document states it at every place in doc, and every column in cols keeps
// one whole value of it.
type apiLimit struct {
	name  string // the module constant
	value int
	doc   []string // pointers into /openapi.json: a maxLength, maxItems or maximum, or a pattern ending in {m,n}
	cols  []string // table.column
	bytes bool     // the module counts bytes (len), not characters
	// json, for an array kept as one JSON text in cols: the most bytes one
	// item takes there, quotes left out.
	json int
}

// jsonBytesPerChar is the most one character of a free text takes in JSON:
// encoding/json writes <, >, &, U+2028 and U+2029 as \uXXXX.
const jsonBytesPerChar = 6

// apiLimits lists every limit the document states. Parts of the document
// name the constant (adapters/httpapi/limits.go resolves the name); the
// accounts, partners, flags and stream parts still state the number, so for
// them this table is the only link.
var apiLimits = []apiLimit{
	{name: "core.MaxPageLimit", value: core.MaxPageLimit, doc: []string{
		docQuery("get", "/api/admin/feedback", "limit", "maximum"),
		docQuery("get", "/api/feature-flags", "limit", "maximum"),
		docQuery("get", "/api/messages/list", "limit", "maximum"),
		docQuery("get", "/api/users/user/{userId}/events", "limit", "maximum"),
		docQuery("get", "/api/users/user/{userId}/feedback", "limit", "maximum"),
		docQuery("get", "/api/users/user/{userId}/images", "limit", "maximum"),
		docQuery("get", "/api/users/user/{userId}/memories", "limit", "maximum"),
		docQuery("get", "/api/users/user/{userId}/memories/date-range", "limit", "maximum"),
		docQuery("get", "/api/users/user/{userId}/notifications", "limit", "maximum"),
		docQuery("get", "/api/users/user/{userId}/changes", "limit", "maximum"),
	}},

	{name: "accounts.MaxEmail", value: accounts.MaxEmail, bytes: true,
		doc: []string{docBody("post", "/api/auth/signup/email", "oneOf/0/properties/email/maxLength"),
			docSchema("PasswordResetRequest", "email/maxLength")},
		// an administrator's e-mail: who handled feedback, who changed what
		cols: []string{"accounts.email", "mail_outbox.recipient", "feedback.handled_by", "audit_log.actor"}},
	{name: "accounts.MaxPassword", value: accounts.MaxPassword, doc: []string{ // kept as an argon2id hash
		docBody("post", "/api/auth/signup/email", "oneOf/0/properties/password/maxLength"),
		docSchema("PasswordResetWithCode", "newPassword/maxLength"),
		docSchema("PasswordResetWithToken", "newPassword/maxLength"),
		docBody("post", "/api/users/user/{userId}/password", "properties/newPassword/maxLength"),
	}},
	{name: "accounts.MaxDisplayName", value: accounts.MaxDisplayName, cols: []string{"accounts.display_name"}, doc: []string{
		docSchema("Profile", "displayName/maxLength"),
		docBody("patch", "/api/users/user/{userId}", "properties/displayName/maxLength"),
	}},
	{name: "accounts.MaxNickname", value: accounts.MaxNickname, cols: []string{"accounts.nickname"}, doc: []string{
		docSchema("Profile", "nickname/maxLength"),
		docBody("patch", "/api/users/user/{userId}", "properties/nickname/maxLength"),
	}},
	{name: "accounts.MaxTimezone", value: accounts.MaxTimezone, bytes: true, cols: []string{"accounts.timezone"},
		doc: []string{docBody("patch", "/api/users/user/{userId}", "properties/timezone/maxLength")}},
	{name: "core.MaxLocale", value: core.MaxLocale, bytes: true, cols: []string{"accounts.locale"}, doc: []string{
		docSchema("Profile", "locale/maxLength"),
		docBody("patch", "/api/users/user/{userId}", "properties/locale/maxLength"),
	}},
	{name: "accounts.MaxUserAgent", value: accounts.MaxUserAgent, bytes: true, cols: []string{"auth_tokens.user_agent"}}, // a header, clipped

	{name: "admin.MaxField", value: admin.MaxField, bytes: true, cols: []string{"audit_log.action", "audit_log.target"}}, // clipped
	{name: "admin.MaxState", value: admin.MaxState, bytes: true, cols: []string{"audit_log.before_state", "audit_log.after_state"}},

	{name: "events.MaxTitle", value: events.MaxTitle, cols: []string{"events.title"}, doc: []string{
		docSchema("CalendarEvent", "title/maxLength"), docSchema("CalendarEventWrite", "title/maxLength"),
	}},
	{name: "events.MaxDescription", value: events.MaxDescription, cols: []string{"events.description"}, doc: []string{
		docSchema("CalendarEvent", "description/maxLength"), docSchema("CalendarEventWrite", "description/maxLength"),
	}},
	{name: "events.MaxLocation", value: events.MaxLocation, cols: []string{"events.location"}, doc: []string{
		docSchema("CalendarEvent", "location/maxLength"), docSchema("CalendarEventWrite", "location/maxLength"),
	}},
	{name: "events.MaxParticipants", value: events.MaxParticipants,
		cols: []string{"events.participants"}, json: events.MaxParticipantID * jsonBytesPerChar, doc: []string{
			docSchema("CalendarEvent", "participants/maxItems"), docSchema("CalendarEventWrite", "participants/maxItems"),
		}},
	{name: "events.MaxParticipantID", value: events.MaxParticipantID, doc: []string{ // kept in events.participants (above)
		docSchema("CalendarEvent", "participants/items/maxLength"), docSchema("CalendarEventWrite", "participants/items/maxLength"),
	}},

	{name: "events.MaxNotifyDigits", value: events.MaxNotifyDigits, doc: []string{ // kept as minutes
		docSchema("CalendarEventWrite", "notify/oneOf/0/maxLength")}},
	{name: "events.MaxNotifyMinutes", value: events.MaxNotifyMinutes, doc: []string{docSchema("CalendarEventWrite", "notify/oneOf/1/maximum")}},

	{name: "feedback.MaxMessage", value: feedback.MaxMessage, cols: []string{"feedback.message"},
		doc: []string{docBody("post", "/api/users/user/{userId}/feedback", "properties/feedbackMessage/maxLength")}},

	{name: "flags.MaxKey", value: flags.MaxKey, bytes: true, cols: []string{"feature_flags.flag_key", "feature_flag_users.flag_key"}, doc: []string{
		docSchema("FeatureFlag", "key/pattern"), docSchema("FeatureFlagWrite", "key/maxLength"),
		docSchema("FeatureFlagWrite", "flagKey/pattern"),
	}},
	{name: "flags.MaxName", value: flags.MaxName, cols: []string{"feature_flags.name"},
		doc: []string{docSchema("FeatureFlagWrite", "name/maxLength")}},
	{name: "flags.MaxDescription", value: flags.MaxDescription, cols: []string{"feature_flags.description"},
		doc: []string{docSchema("FeatureFlagWrite", "description/maxLength")}},
	{name: "flags.MaxCreatedBy", value: flags.MaxCreatedBy, cols: []string{"feature_flags.created_by"},
		doc: []string{docSchema("FeatureFlagWrite", "createdBy/maxLength")}},
	{name: "flags.MaxUserID", value: flags.MaxUserID, cols: []string{"feature_flag_users.user_id"}, doc: []string{
		docSchema("FeatureFlagWrite", "enabledForUserIds/items/maxLength"),
		docSchema("FeatureFlagWrite", "disabledForUserIds/items/maxLength"),
		docQuery("get", "/api/feature-flags", "userId", "maxLength"),
	}},
	{name: "flags.MaxListedUsers", value: flags.MaxListedUsers, doc: []string{ // a row per listed user
		docSchema("FeatureFlagWrite", "enabledForUserIds/maxItems"), docSchema("FeatureFlagWrite", "disabledForUserIds/maxItems"),
	}},

	{name: "core.MaxMillis", value: core.MaxMillis, doc: []string{ // kept as a time
		docSchema("PremiumWrite", "startDate/maximum"), docSchema("PremiumWrite", "endDate/maximum"),
		docSchema("VersionPolicyWrite", "deprecationDate/maximum"),
	}},

	{name: "idempotency.MaxKeyLength", value: idempotency.MaxKeyLength, // kept as its SHA-256
		doc: []string{"/components/parameters/IdempotencyKey/schema/maxLength"}},

	{name: "images.MaxPerUpload", value: images.MaxPerUpload, doc: []string{
		docPath("post", "/api/users/user/{userId}/images") + "/requestBody/content/multipart~1form-data/schema/properties/file/maxItems",
	}},
	{name: "images.MaxGroupUpdate", value: images.MaxGroupUpdate,
		doc: []string{docBody("put", "/api/users/user/{userId}/images/group/{groupId}", "properties/images/maxItems")}},

	{name: "memories.MaxTitle", value: memories.MaxTitle, cols: []string{"memories.title"}, doc: []string{
		docSchema("Memory", "title/maxLength"),
		docBody("post", "/api/users/user/{userId}/memories", "properties/title/maxLength"),
		docBody("put", "/api/users/user/{userId}/memories/{memoryId}", "properties/title/maxLength"),
	}},
	{name: "memories.MaxDescription", value: memories.MaxDescription, cols: []string{"memories.description"}, doc: []string{
		docSchema("Memory", "description/maxLength"),
		docBody("post", "/api/users/user/{userId}/memories", "properties/description/maxLength"),
		docBody("put", "/api/users/user/{userId}/memories/{memoryId}", "properties/description/maxLength"),
	}},
	// Image addresses are ASCII addresses of the files route, which JSON
	// writes as they are.
	{name: "memories.MaxImages", value: memories.MaxImages, cols: []string{"memories.images"}, json: memories.MaxImageURL, doc: []string{
		docSchema("Memory", "images/maxItems"),
		docBody("post", "/api/users/user/{userId}/memories", "properties/images/maxItems"),
	}},
	{name: "memories.MaxImageURL", value: memories.MaxImageURL, bytes: true, doc: []string{ // kept in memories.images (above)
		docSchema("Memory", "images/items/maxLength"),
		docBody("post", "/api/users/user/{userId}/memories", "properties/images/items/maxLength"),
	}},

	{name: "messages.MaxBody", value: messages.MaxBody, cols: []string{"messages.body"}, doc: []string{
		docSchema("Message", "body/maxLength"), docBody("post", "/api/messages/send", "properties/body/maxLength"),
	}},

	{name: "moods.MaxNote", value: moods.MaxNote, cols: []string{"moods.note"}, doc: []string{
		docSchema("Mood", "note/maxLength"), docBody("post", "/api/users/user/{userId}/moods", "properties/note/maxLength"),
	}},

	{name: "notifications.MaxTitle", value: notifications.MaxTitle, cols: []string{"notifications.title"},
		doc: []string{docBody("post", "/api/users/user/{userId}/send-test-notification", "properties/title/maxLength")}},
	{name: "notifications.MaxMessage", value: notifications.MaxMessage, cols: []string{"notifications.message"},
		doc: []string{docBody("post", "/api/users/user/{userId}/send-test-notification", "properties/message/maxLength")}},
	{name: "notifications.MaxToken", value: notifications.MaxToken, bytes: true, cols: []string{"notification_devices.token"},
		doc: []string{docSchema("DeviceRegistrationExpo", "token/maxLength"),
			docSchema("DeviceRegistrationFCM", "token/maxLength")}},

	{name: "partners.MaxConnectionCode", value: partners.MaxConnectionCode, bytes: true,
		cols: []string{"partner_connections.code", "partner_connections.code_key"}, doc: []string{
			docSchema("ConnectionRequest", "connectionCode/pattern"), docSchema("CreateConnectionRequest", "connectionCode/pattern"),
		}},
	{name: "partners.PairingCodeLength", value: partners.PairingCodeLength, bytes: true, cols: []string{"pairing_codes.code"}},

	{name: "premium.MaxPlan", value: premium.MaxPlan, cols: []string{"premium_subscriptions.plan"}, doc: []string{
		docSchema("PremiumSubscription", "plan/maxLength"), docSchema("PremiumWrite", "plan/maxLength"),
	}},
	{name: "premium.MaxBillingID", value: premium.MaxBillingID, bytes: true, cols: []string{"premium_subscriptions.billing_id"},
		doc: []string{docSchema("PremiumWrite", "billingId/maxLength")}},
	{name: "premium.MaxProductID", value: premium.MaxProductID, bytes: true, cols: []string{"premium_subscriptions.product_id"},
		doc: []string{docSchema("PremiumWrite", "productId/maxLength")}},
	{name: "premium.MaxProof", value: premium.MaxProof, bytes: true, doc: []string{ // read, never kept
		docSchema("PremiumWrite", "signedTransactionInfo/maxLength"), docSchema("PremiumWrite", "purchaseToken/maxLength"),
	}},

	{name: "questions.MaxText", value: questions.MaxText, cols: []string{"question_messages.body"}, doc: []string{
		docSchema("DailyQuestionAnswerAction", "text/maxLength"),
		docSchema("DailyQuestionReplyAction", "text/maxLength"),
	}},
	{name: "questions.MaxReaction", value: questions.MaxReaction, cols: []string{"question_messages.reaction"},
		doc: []string{docSchema("DailyQuestionReactAction", "reaction/maxLength")}},
	{name: "questions.MaxHistory", value: questions.MaxHistory,
		doc: []string{docQuery("get", "/api/users/user/{userId}/daily-question/history", "limit", "maximum")}},

	{name: "relationship.MaxMilestones", value: relationship.MaxMilestones,
		doc: []string{docQuery("get", "/api/user/{userId}/relationship/milestones", "limit", "maximum")}},

	{name: "versions.MaxUpdateMessage", value: versions.MaxUpdateMessage, cols: []string{"version_policies.update_message"},
		doc: []string{docSchema("VersionPolicyWrite", "updateMessage/maxLength")}},
	{name: "versions.MaxReleaseNotes", value: versions.MaxReleaseNotes, cols: []string{"version_policies.release_notes"},
		doc: []string{docSchema("VersionPolicyWrite", "releaseNotes/maxLength")}},
	{name: "versions.MaxDownloadURL", value: versions.MaxDownloadURL, bytes: true, cols: []string{"version_policies.download_url"},
		doc: []string{docSchema("VersionPolicyWrite", "downloadUrl/maxLength")}},
	{name: "versions.MaxUserID", value: versions.MaxUserID, doc: []string{ // checked, then dropped
		docBody("post", "/api/version-check", "properties/userId/maxLength"),
		docQuery("get", "/api/version-check", "userId", "maxLength"),
	}},
	{name: "versions.MaxDeviceField", value: versions.MaxDeviceField, doc: []string{ // checked, then dropped
		docBody("post", "/api/version-check", "properties/deviceInfo/properties/os/maxLength"),
		docBody("post", "/api/version-check", "properties/deviceInfo/properties/osVersion/maxLength"),
		docBody("post", "/api/version-check", "properties/deviceInfo/properties/deviceModel/maxLength"),
		docBody("post", "/api/version-check", "properties/deviceInfo/properties/appVersion/maxLength"),
	}},
	{name: "versions.MaxBuildNumber", value: versions.MaxBuildNumber, doc: []string{
		docBody("post", "/api/version-check", "properties/currentBuildNumber/maximum"),
		docQuery("get", "/api/version-check", "buildNumber", "maximum"),
	}},
}

// statedElsewhere are the limits of the document no module constant states.
var statedElsewhere = map[string]string{
	docQuery("get", "/api/users/user/{userId}/stream", "Last-Event-ID", "maxLength"): "a literal 64 in adapters/httpapi/stream.go",
	"/components/headers/X-Request-Id/schema/pattern":                                "httpapi's maxRequestIDLen, checked in adapters/httpapi/limits_test.go",
	docSchema("FeatureFlag", "rolloutPercentage/maximum"):                            "a percentage",
	docSchema("VersionPolicyWrite", "minRequiredVersion/pattern"):                    "a version number's 9 digits (core.ParseVersion), kept as a number",
	docSchema("VersionPolicyWrite", "recommendedVersion/pattern"):                    "a version number's 9 digits (core.ParseVersion), kept as a number",
	docSchema("VersionPolicyWrite", "latestVersion/pattern"):                         "a version number's 9 digits (core.ParseVersion), kept as a number",
	docQuery("get", "/api/version-check", "version", "pattern"):                      "a version number's 9 digits (core.ParseVersion), never kept",
	docBody("post", "/api/version-check", "properties/currentVersion/pattern"):       "a version number's 9 digits (core.ParseVersion), never kept",
	docSchema("FeatureFlagWrite", "rolloutPercentage/maximum"):                       "a percentage",
}

func docSchema(schema, rest string) string {
	return "/components/schemas/" + schema + "/properties/" + rest
}

func docPath(method, path string) string {
	return "/paths/" + strings.ReplaceAll(path, "/", "~1") + "/" + method
}

func docBody(method, path, rest string) string {
	return docPath(method, path) + "/requestBody/content/application~1json/schema/" + rest
}

// docQuery points into the parameter of the operation with that name (a
// pointer segment the test resolves by name, not by position).
func docQuery(method, path, param, keyword string) string {
	return docPath(method, path) + "/parameters/" + param + "/schema/" + keyword
}

// TestOpenAPILimitsMatchModulesAndColumns: every limit the document states
// is the module constant at every place it applies, and every column that
// keeps such a value is wide enough for the largest one, in characters of
// utf8mb4 (MySQL, from information_schema after every migration; SQLite
// has no sizes, so there each column must merely exist).
func TestOpenAPILimitsMatchModulesAndColumns(t *testing.T) {
	parallel(t)
	var doc any
	if err := json.Unmarshal(httpapi.OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}

	stated := map[string]bool{}
	for _, l := range apiLimits {
		for _, p := range l.doc {
			stated[p] = true
			got, err := docLimit(doc, p)
			if err != nil {
				t.Errorf("%s = %d: %v", l.name, l.value, err)
			} else if got != l.value {
				t.Errorf("%s = %d, but the document states %d at %s", l.name, l.value, got, p)
			}
		}
	}
	for _, p := range docLimits(doc, "") {
		if !stated[p] && statedElsewhere[p] == "" {
			t.Errorf("the document states a limit at %s that no row of apiLimits names: add its module constant and columns", p)
		}
	}

	for _, d := range sqltest.Dialects(t) {
		t.Run(string(d), func(t *testing.T) {
			parallel(t)
			db := sqltest.Open(t, d)
			cols, err := columnsOf(context.Background(), db)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range apiLimits {
				for _, name := range l.cols {
					c, ok := cols[name]
					if !ok {
						t.Errorf("%s: no column %s after the migrations", l.name, name)
						continue
					}
					if d == sqlstore.MySQL {
						if msg := c.refuses(l); msg != "" {
							t.Errorf("%s = %d, but %s %s: widen it in a new migration (migrations/mysql)", l.name, l.value, name, msg)
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

// refuses says why c cannot keep the largest value of l, or "".
func (c column) refuses(l apiLimit) string {
	text := strings.HasSuffix(c.dataType, "text")
	if c.dataType != "varchar" && c.dataType != "char" && !text {
		return "is " + c.dataType + ", not text"
	}
	if l.json == 0 && !l.bytes {
		switch {
		case c.charset != "utf8mb4":
			return "is " + c.charset + ", which cannot keep every character"
		case !text && c.chars < int64(l.value), text && c.octets < int64(l.value)*c.maxlen:
			return fmt.Sprintf("is %s keeping %d characters (%d bytes)", c.dataType, min(c.chars, c.octets/c.maxlen), c.octets)
		}
		return ""
	}
	need := int64(l.value)
	if l.json > 0 {
		need = int64(l.value)*int64(l.json+3) + 1 // [ "item", ... ]
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

// patternBound is the upper bound of a pattern's last {m,n}.
var patternBound = regexp.MustCompile(`\{\d+,(\d+)\}[^{]*$`)

// docLimit reads the limit at pointer p: a number, or a pattern's bound.
// An array element may be named by its "name" (parameters).
func docLimit(doc any, p string) (int, error) {
	v := doc
	for _, tok := range strings.Split(p, "/")[1:] {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			v = nil
			if i, err := strconv.Atoi(tok); err == nil && i < len(x) {
				v = x[i]
			}
			for _, e := range x {
				if m, ok := e.(map[string]any); ok && m["name"] == tok {
					v = e
				}
			}
		default:
			v = nil
		}
		if v == nil {
			return 0, fmt.Errorf("the document has no %s (no %q)", p, tok)
		}
	}
	switch x := v.(type) {
	case float64:
		return int(x), nil
	case string:
		if m := patternBound.FindStringSubmatch(x); m != nil {
			return strconv.Atoi(m[1])
		}
	}
	return 0, fmt.Errorf("%s is %v, no limit", p, v)
}

// docLimits lists the pointers of every limit in doc: maxLength, maxItems
// and maximum, and patterns with a {m,n}; a named parameter is pointed to
// by its name.
func docLimits(v any, at string) []string {
	var out []string
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			p := at + "/" + strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
			switch s, isString := c.(string); {
			case (k == "maxLength" || k == "maxItems" || k == "maximum") && !isMap(c):
				out = append(out, p)
			case k == "pattern" && isString && patternBound.MatchString(s):
				out = append(out, p)
			default:
				out = append(out, docLimits(c, p)...)
			}
		}
	case []any:
		for i, c := range x {
			tok := strconv.Itoa(i)
			if m, ok := c.(map[string]any); ok {
				if name, ok := m["name"].(string); ok {
					tok = name
				}
			}
			out = append(out, docLimits(c, at+"/"+tok)...)
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

func isMap(v any) bool { _, ok := v.(map[string]any); return ok }
