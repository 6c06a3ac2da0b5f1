package core

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// Message is a text a person reads, named by a catalog key and its
// arguments, so that each reader sees it in their own language: a module
// says what to tell, a Translator says it in the reader's locale. Args are
// int, string, Date or TimeOfDay (a Translator writes the last two in the
// reader's form: "1er mars", "a la 1:30"); an int is also the count that
// picks a plural form.
type Message struct {
	Key  string
	Args []any
	// English is the English format where the code keeps it (an error's,
	// whose Key is a stable id): what a language without the key reads.
	English string
}

// Msg is a Message of key with args.
func Msg(key string, args ...any) Message { return Message{Key: key, Args: args} }

// Translator renders messages in a locale (a BCP 47 tag; the closest
// supported language answers, English last). A key no catalog holds is
// rendered from its English (the key itself when there is none), its
// arguments formatted into it.
type Translator interface {
	Translate(locale string, m Message) string
}

// MarshalArgs is m's arguments as stored: a JSON array of numbers, strings,
// {"date": "YYYY-MM-DD"} and {"time": "HH:mm"} objects ("" for none).
func (m Message) MarshalArgs() (string, error) {
	if len(m.Args) == 0 {
		return "", nil
	}
	out := make([]any, len(m.Args))
	for i, a := range m.Args {
		switch v := a.(type) {
		case int, string:
			out[i] = v
		case Date:
			out[i] = map[string]string{"date": v.String()}
		case TimeOfDay:
			out[i] = map[string]string{"time": v.String()}
		default:
			return "", fmt.Errorf("message %s: argument %d is a %T, not an int, string, Date or TimeOfDay", m.Key, i+1, a)
		}
	}
	b, err := json.Marshal(out)
	return string(b), err
}

// UnmarshalMessage is the Message stored as key and MarshalArgs's args.
func UnmarshalMessage(key, args string) (Message, error) {
	m := Message{Key: key}
	if args == "" {
		return m, nil
	}
	var raw []json.RawMessage
	if err := json.Unmarshal([]byte(args), &raw); err != nil {
		return m, fmt.Errorf("message %s: arguments: %w", key, err)
	}
	for _, r := range raw {
		a, err := unmarshalArg(r)
		if err != nil {
			return m, fmt.Errorf("message %s: %w", key, err)
		}
		m.Args = append(m.Args, a)
	}
	return m, nil
}

func unmarshalArg(r json.RawMessage) (any, error) {
	var n int
	if json.Unmarshal(r, &n) == nil {
		return n, nil
	}
	var s string
	if json.Unmarshal(r, &s) == nil {
		return s, nil
	}
	var d struct{ Date, Time string }
	switch err := json.Unmarshal(r, &d); {
	case err == nil && d.Date != "":
		return ParseDate(d.Date)
	case err == nil && d.Time != "":
		return ParseTimeOfDay(d.Time)
	}
	return nil, fmt.Errorf("argument %s is no int, string, date or time", r)
}

// MaxLocale bounds a locale tag (BCP 47 allows long tags; a profile needs
// language, script, region and a variant at most).
const MaxLocale = 35

// langTag is BCP 47's langtag production without extensions and private
// use: language (2-3 letters, or 5-8), script, region, variants.
var langTag = regexp.MustCompile(`^[A-Za-z]{2,3}(-[A-Za-z]{4})?(-([A-Za-z]{2}|[0-9]{3}))?(-([A-Za-z0-9]{5,8}|[0-9][A-Za-z0-9]{3}))*$`)

// LocalePattern is ParseLocale's rule as the API document states it (see
// TrimmedLinePattern): langTag with "_" for "-", spaces around it trimmed.
const LocalePattern = `^[` + textSpace + `]*[A-Za-z]{2,3}(?:[-_][A-Za-z]{4})?(?:[-_](?:[A-Za-z]{2}|[0-9]{3}))?` +
	`(?:[-_](?:[A-Za-z0-9]{5,8}|[0-9][A-Za-z0-9]{3}))*[` + textSpace + `]*$`

// ParseLocale accepts a well-formed BCP 47 language tag ("de", "pt-BR",
// "zh-Hant-TW", "_" read as "-") and returns it in its canonical case
// (language lower, script title, region upper). Whether Tandem speaks it is
// not asked here: an unsupported tag is kept and falls back when rendered.
func ParseLocale(s string) (string, error) {
	s = strings.ReplaceAll(strings.TrimSpace(s), "_", "-")
	if len(s) > MaxLocale || !langTag.MatchString(s) {
		return "", Invalid("invalid_request", "core.localeBCP47LanguageTag", "locale must be a BCP 47 language tag such as en, de or pt-BR")
	}
	parts := strings.Split(s, "-")
	for i, p := range parts {
		switch {
		case i == 0:
			parts[i] = strings.ToLower(p)
		case len(p) == 4 && i == 1 && isLetters(p):
			parts[i] = strings.ToUpper(p[:1]) + strings.ToLower(p[1:])
		case len(p) == 2 || (len(p) == 3 && i <= 2 && !isLetters(p)):
			parts[i] = strings.ToUpper(p)
		default:
			parts[i] = strings.ToLower(p)
		}
	}
	return strings.Join(parts, "-"), nil
}

func isLetters(s string) bool {
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') {
			return false
		}
	}
	return true
}
