// Package i18n speaks Tandem's texts in the reader's language: one catalog
// file per language (catalogs/<tag>.json, embedded), golang.org/x/text's
// message catalogs and printer for plural forms (CLDR rules) and numbers in
// the locale's form, and its matcher for the closest supported language.
package i18n

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/message/catalog"

	"tandem/core"
)

//go:embed catalogs/*.json
var files embed.FS

// File is one language's catalog as written: the texts keyed by name
// (Messages, in every language, English included), and the translations of
// texts whose English lives in the code: error messages and the API's
// answers (Errors: a plain text, or plural forms as in Messages where the
// English counts something), daily questions and advice, each by its
// stable id.
type File struct {
	Name      string                     `json:"name"`
	Messages  map[string]json.RawMessage `json:"messages"`
	Errors    map[string]json.RawMessage `json:"errors"`
	Questions map[string]string          `json:"questions"`
	Advice    map[string]string          `json:"advice"`
}

// Plural is a message with a form per CLDR plural category of the count,
// the Arg-th argument (1 when unset).
type Plural struct {
	Arg   int               `json:"arg"`
	Forms map[string]string `json:"-"`
}

// The prefixes under which questions and advice are kept: their keys are
// "question."+id and "advice."+id.
const (
	QuestionKey = "question."
	AdviceKey   = "advice."
)

// Catalogs are the supported languages and their texts.
type Catalogs struct {
	tags     []language.Tag // English first: the fallback
	matcher  language.Matcher
	printers map[language.Tag]*message.Printer
	months   map[language.Tag][12]string
	keys     map[language.Tag]map[string]bool // what each language names
}

// Load reads every embedded catalog. sources are the English texts kept
// in the code under their keys (the question and advice banks).
func Load(sources map[string]string) (*Catalogs, error) {
	parsed, err := ReadAll()
	if err != nil {
		return nil, err
	}
	b := catalog.NewBuilder(catalog.Fallback(language.English))
	tags := []language.Tag{language.English}
	for tag, f := range parsed {
		if tag != language.English {
			tags = append(tags, tag)
		}
		if err := f.addTo(b, tag); err != nil {
			return nil, fmt.Errorf("catalog %s: %w", tag, err)
		}
	}
	keys := map[language.Tag]map[string]bool{}
	for tag, f := range parsed {
		keys[tag] = f.keys()
	}
	for key, text := range sources {
		if err := b.SetString(language.English, key, text); err != nil {
			return nil, err
		}
		keys[language.English][key] = true
	}
	sort.Slice(tags[1:], func(i, j int) bool { return tags[i+1].String() < tags[j+1].String() })
	c := &Catalogs{tags: tags, matcher: language.NewMatcher(tags), printers: map[language.Tag]*message.Printer{},
		months: map[language.Tag][12]string{}, keys: keys}
	for _, t := range tags {
		p := message.NewPrinter(t, message.Catalog(b))
		c.printers[t] = p
		var m [12]string
		for i := range m {
			m[i] = p.Sprintf("date.month." + strconv.Itoa(i+1))
		}
		c.months[t] = m
	}
	return c, nil
}

// ReadAll parses every embedded catalog file, by language.
func ReadAll() (map[language.Tag]File, error) {
	names, err := fs.Glob(files, "catalogs/*.json")
	if err != nil {
		return nil, err
	}
	out := map[language.Tag]File{}
	for _, name := range names {
		tag, err := language.Parse(strings.TrimSuffix(path.Base(name), ".json"))
		if err != nil {
			return nil, fmt.Errorf("%s: the file name is no language tag: %w", name, err)
		}
		raw, err := files.ReadFile(name)
		if err != nil {
			return nil, err
		}
		var f File
		if err := json.Unmarshal(raw, &f); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out[tag] = f
	}
	if _, ok := out[language.English]; !ok {
		return nil, fmt.Errorf("catalogs: en.json is missing")
	}
	return out, nil
}

// Languages are the supported locales, English first.
func (c *Catalogs) Languages() []string {
	out := make([]string, len(c.tags))
	for i, t := range c.tags {
		out[i] = t.String()
	}
	return out
}

// Match is the supported locale closest to an Accept-Language header's
// preferences, "en" when none is close (a different language is never
// taken for a close one).
func (c *Catalogs) Match(acceptLanguage string) string {
	prefs, _, err := language.ParseAcceptLanguage(acceptLanguage)
	if err != nil || len(prefs) == 0 {
		return "en"
	}
	return c.tags[c.best(prefs...)].String()
}

// best is the index of the supported tag closest to prefs (0, English,
// when none is). A preference written in a script that no catalog of its
// language uses is passed over: x/text takes Traditional Chinese (zh-TW,
// zh-HK, zh-MO, zh-Hant) for Simplified with low confidence, but the two
// are different written standards, and iOS and Android do not show an app's
// Simplified texts to a Traditional reader either; such a reader gets the
// next language they list (zh-CN among them: Simplified), else English.
func (c *Catalogs) best(prefs ...language.Tag) int {
	kept := prefs[:0:0]
	for _, p := range prefs {
		if !c.otherScript(p) {
			kept = append(kept, p)
		}
	}
	if len(kept) == 0 {
		return 0
	}
	_, i, conf := c.matcher.Match(kept...)
	if conf == language.No {
		return 0
	}
	return i
}

// otherScript: p's language has catalogs, none in p's (likely) script.
func (c *Catalogs) otherScript(p language.Tag) bool {
	base, _ := p.Base()
	script, _ := p.Script()
	hasLanguage := false
	for _, t := range c.tags {
		if b, _ := t.Base(); b != base {
			continue
		}
		if s, _ := t.Script(); s == script {
			return false
		}
		hasLanguage = true
	}
	return hasLanguage
}

// Supported is the supported locale that serves locale ("pt-PT" → "pt-BR",
// "de-CH" → "de"; "en" when none is close or locale is no tag).
func (c *Catalogs) Supported(locale string) string {
	return c.tag(locale).String()
}

func (c *Catalogs) tag(locale string) language.Tag {
	if locale == "" || locale == "en" {
		return language.English
	}
	t, err := language.Parse(locale)
	if err != nil {
		return language.English
	}
	return c.tags[c.best(t)]
}

// Translate renders m in the supported language closest to locale. A key
// no catalog holds is its own English text: a format filled with the
// arguments (English numbers as Go writes them; other languages' numbers in
// their own form).
func (c *Catalogs) Translate(locale string, m core.Message) string {
	t := c.tag(locale)
	if !c.keys[t][m.Key] {
		t = language.English // not translated (yet): English
	}
	args := c.args(t, m.Args)
	if t == language.English && !c.keys[t][m.Key] {
		english := m.English
		if english == "" {
			english = m.Key
		}
		return core.Format(english, args...)
	}
	return c.printers[t].Sprintf(m.Key, args...)
}

// args formats the dates of args in t's long form; the rest stay as they are.
func (c *Catalogs) args(t language.Tag, args []any) []any {
	out := args
	for i, a := range args {
		d, ok := a.(core.Date)
		if !ok {
			continue
		}
		if &out[0] == &args[0] {
			out = append([]any(nil), args...)
		}
		out[i] = c.date(t, d)
	}
	return out
}

// date is d in t's long form ("14 February 2026", "14. Februar 2026").
func (c *Catalogs) date(t language.Tag, d core.Date) string {
	if d.Month < 1 || d.Month > 12 {
		return d.String()
	}
	return c.printers[t].Sprintf("date.long", strconv.Itoa(d.Day), c.months[t][d.Month-1], strconv.Itoa(d.Year),
		strconv.Itoa(int(d.Month)))
}

// MustLoad is Load for tests and tools: the catalogs are embedded, so a
// failure is a broken build, not a condition to handle.
func MustLoad(sources map[string]string) *Catalogs {
	c, err := Load(sources)
	if err != nil {
		panic(err)
	}
	return c
}

// Note is a notification's title and body, m.Key+".title" and ".body"
// filled with m's arguments, in locale.
func (c *Catalogs) Note(locale string, m core.Message) (title, body string) {
	return c.Translate(locale, core.Msg(m.Key+".title", m.Args...)), c.Translate(locale, core.Msg(m.Key+".body", m.Args...))
}
