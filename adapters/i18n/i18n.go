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
// taken for a close one; see Neighbours).
func (c *Catalogs) Match(acceptLanguage string) string {
	prefs, _, err := language.ParseAcceptLanguage(acceptLanguage)
	if err != nil || len(prefs) == 0 {
		return "en"
	}
	return c.tags[c.best(prefs...)].String()
}

// Preferred is the device's own language: the first tag of an
// Accept-Language header ("it-IT" from "it-IT,it;q=0.9,en;q=0.8"), as
// written in canonical form, whether a catalog speaks it or not; "" when
// the header names none ("*", malformed).
func (c *Catalogs) Preferred(acceptLanguage string) string {
	prefs, _, err := language.ParseAcceptLanguage(acceptLanguage)
	if err != nil {
		return ""
	}
	for _, p := range prefs {
		if b, _ := p.Base(); p != language.Und && b.String() != "mul" { // "*" is "mul"
			return p.String()
		}
	}
	return ""
}

// best is the index of the supported tag closest to prefs (0, English,
// when none is).
func (c *Catalogs) best(prefs ...language.Tag) int {
	prefs = c.neighbours(prefs)
	if len(prefs) == 0 {
		return 0
	}
	_, i, conf := c.matcher.Match(prefs...)
	if conf == language.No {
		return 0
	}
	return i
}

// Neighbours decide what a language Tandem has no catalog for is read in,
// where x/text's matcher alone would choose otherwise or not at all: the
// language every speaker also reads (an official language beside theirs),
// "" for English. A neighbour without a catalog (yet) is English too.
//   - Russian for Belarusian, Kazakh, Kyrgyz, Tajik, Tatar and Bashkir:
//     Russian is an official (or constitutional inter-ethnic) language
//     there, read by nearly every speaker.
//   - Not Russian for Armenian, Georgian, Uzbek, Mongolian and Ukrainian:
//     Russian is no official language there and, for many, not the
//     language they would choose; Azerbaijani is read in Turkish, its close
//     Oghuz relative (mutually intelligible), else English.
//   - Spanish (Spain's) for Galician, Basque, Catalan, Asturian and
//     Aragonese; French for Breton, Occitan and Corsican; German for
//     Luxembourgish, Romansh and Swiss German: co-official or the
//     language of school for every speaker.
//   - Dutch for Frisian (every Frisian speaker is Dutch); not Dutch for
//     Afrikaans, whose readers read English far more than Dutch.
//   - Traditional Chinese (zh-Hant, Taiwan, Hong Kong, Macau) is not read
//     in Simplified Chinese: English until a zh-Hant catalog exists.
var Neighbours = map[string]string{
	"be": "ru", "kk": "ru", "ky": "ru", "tg": "ru", "tt": "ru", "ba": "ru",
	"hy": "", "ka": "", "uz": "", "mn": "", "uk": "", "az": "tr",
	"gl": "es-ES", "eu": "es-ES", "ca": "es-ES", "ast": "es-ES", "an": "es-ES",
	"br": "fr", "oc": "fr", "co": "fr",
	"lb": "de", "rm": "de", "gsw": "de",
	"fy": "nl", "af": "",
}

// neighbours rewrites prefs by Neighbours: a language Tandem does not
// speak is replaced by its neighbour, or left out when that is English or
// has no catalog; Traditional Chinese is left out unless a catalog writes it.
func (c *Catalogs) neighbours(prefs []language.Tag) []language.Tag {
	out := make([]language.Tag, 0, len(prefs))
	traditional := false // a bare "zh" after "zh-TW" ("zh-TW,zh;q=0.9", as browsers send) is Traditional too
	for _, p := range prefs {
		base, _ := p.Base()
		if c.speaks(base.String()) {
			if base.String() == "zh" && !c.speaksTag("zh-Hant") {
				script, _ := p.Script()
				if script.String() == "Hant" {
					traditional = true
					continue
				}
				if traditional && p == language.Chinese {
					continue
				}
			}
			out = append(out, p)
			continue
		}
		n, ok := Neighbours[base.String()]
		switch {
		case !ok:
			out = append(out, p)
		case n != "" && c.speaks(strings.SplitN(n, "-", 2)[0]):
			out = append(out, language.MustParse(n))
		}
	}
	return out
}

// speaks: a catalog writes the base language.
func (c *Catalogs) speaks(base string) bool {
	for _, t := range c.tags {
		if b, _ := t.Base(); b.String() == base {
			return true
		}
	}
	return false
}

// speaksTag: a catalog writes exactly tag (script included).
func (c *Catalogs) speaksTag(tag string) bool {
	for _, t := range c.tags {
		if t.String() == tag {
			return true
		}
	}
	return false
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

// args formats the dates of args in t's long form and the times with their
// preposition ("at 19:00"); the rest stay as they are.
func (c *Catalogs) args(t language.Tag, args []any) []any {
	out := args
	for i, a := range args {
		var s string
		switch v := a.(type) {
		case core.Date:
			s = c.date(t, v)
		case core.TimeOfDay:
			s = c.printers[t].Sprintf("time.at", v.String(), v.Hour, fmt.Sprintf("%02d", v.Minute))
		default:
			continue
		}
		if &out[0] == &args[0] {
			out = append([]any(nil), args...)
		}
		out[i] = s
	}
	return out
}

// date is d in t's long form ("14 February 2026", "14. Februar 2026",
// "1er mars 2026"): date.long of the day (date.day: its number, or the
// word a language writes for the first), the month's name, the year and
// the month's number.
func (c *Catalogs) date(t language.Tag, d core.Date) string {
	if d.Month < 1 || d.Month > 12 {
		return d.String()
	}
	p := c.printers[t]
	return p.Sprintf("date.long", p.Sprintf("date.day", d.Day), c.months[t][d.Month-1], strconv.Itoa(d.Year),
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
