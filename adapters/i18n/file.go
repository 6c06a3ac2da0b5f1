package i18n

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"golang.org/x/text/feature/plural"
	"golang.org/x/text/language"
	"golang.org/x/text/message/catalog"
)

// Categories are CLDR's plural categories, in the order a plural message
// tries them (exact counts, "=0", come first).
var Categories = []string{"zero", "one", "two", "few", "many", "other"}

// Text is one entry of "messages" or "errors": a plain text, or a Plural.
type Text struct {
	Plain  string
	Plural *Plural
}

// ParseText reads one entry of "messages" or "errors".
func ParseText(raw json.RawMessage) (Text, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return Text{Plain: s}, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return Text{}, fmt.Errorf("a message is a string or an object of plural forms: %w", err)
	}
	p := &Plural{Arg: 1, Forms: map[string]string{}}
	for k, v := range obj {
		if k == "arg" {
			if err := json.Unmarshal(v, &p.Arg); err != nil || p.Arg < 1 {
				return Text{}, fmt.Errorf(`"arg" is the count's argument number, 1 or more`)
			}
			continue
		}
		if !isCategory(k) && !strings.HasPrefix(k, "=") {
			return Text{}, fmt.Errorf("%q is no plural category (%s or =N)", k, strings.Join(Categories, ", "))
		}
		var form string
		if err := json.Unmarshal(v, &form); err != nil {
			return Text{}, fmt.Errorf("plural form %q: %w", k, err)
		}
		p.Forms[k] = form
	}
	if len(p.Forms) == 0 {
		return Text{}, fmt.Errorf("a plural message has no forms")
	}
	return Text{Plural: p}, nil
}

func isCategory(k string) bool {
	for _, c := range Categories {
		if c == k {
			return true
		}
	}
	return false
}

// message is t as x/text's catalog keeps it.
func (t Text) message() catalog.Message {
	if t.Plural == nil {
		return catalog.String(t.Plain)
	}
	var cases []any
	var exact []string
	for k := range t.Plural.Forms {
		if strings.HasPrefix(k, "=") {
			exact = append(exact, k)
		}
	}
	sort.Strings(exact)
	for _, k := range append(exact, Categories...) {
		if f, ok := t.Plural.Forms[k]; ok {
			cases = append(cases, k, f)
		}
	}
	return plural.Selectf(t.Plural.Arg, "%d", cases...)
}

// keys are the catalog keys f names.
func (f File) keys() map[string]bool {
	out := make(map[string]bool, len(f.Messages)+len(f.Errors)+len(f.Questions)+len(f.Advice))
	for k := range f.Messages {
		out[k] = true
	}
	for k := range f.Errors {
		out[k] = true
	}
	for k := range f.Questions {
		out[QuestionKey+k] = true
	}
	for k := range f.Advice {
		out[AdviceKey+k] = true
	}
	return out
}

// addTo puts f's texts into b under tag.
func (f File) addTo(b *catalog.Builder, tag language.Tag) error {
	for _, texts := range []map[string]json.RawMessage{f.Messages, f.Errors} {
		for key, raw := range texts {
			t, err := ParseText(raw)
			if err != nil {
				return fmt.Errorf("%s: %w", key, err)
			}
			if err := b.Set(tag, key, t.message()); err != nil {
				return fmt.Errorf("%s: %w", key, err)
			}
		}
	}
	for _, group := range []struct {
		prefix string
		texts  map[string]string
	}{{QuestionKey, f.Questions}, {AdviceKey, f.Advice}} {
		for key, text := range group.texts {
			if err := b.SetString(tag, group.prefix+key, text); err != nil {
				return fmt.Errorf("%s: %w", key, err)
			}
		}
	}
	return nil
}
