package i18n

import (
	"strings"
	"testing"
	"unicode"

	"golang.org/x/text/language"

	"tandem/core"
)

// keptWords are runs of English words a translation keeps on purpose: API
// names (headers, fields, values) and product names, lower case.
var keptWords = []string{"idempotency key", "retry after", "x api key", "api key", "feature flag", "feature flags",
	"sign in with apple", "sign in with google", "public key", "content length", "transfer encoding", "content type",
	"multipart form data", "form data", "obs fold", "user agent", "bearer token", "push token", "expo push", "app store",
	"google play", "play store", "major minor patch", "yyyy mm dd", "hh mm", "utf"}

// TestNoEnglishInTranslations renders every text of every catalog with
// sample arguments (words no language has) and fails on a run of two or
// more words that the English text of the same key holds: an untranslated
// fragment ("doit être a number"), unless it names an API or a product.
// What the code fills in at run time is kept out of the messages by
// TestNoPhraseFillsAMessage.
func TestNoEnglishInTranslations(t *testing.T) {
	all, err := ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	english := map[string]string{}
	for key, raw := range all[language.English].Messages {
		x := mustText(t, key, raw)
		if x.Plural != nil {
			english[key] = strings.Join([]string{x.Plural.Forms["one"], x.Plural.Forms["other"]}, " / ")
		} else {
			english[key] = x.Plain
		}
	}
	for key, src := range sourceFormats(t) {
		english[key] = src.format
	}
	c := MustLoad(nil)
	args := []any{"Zq", core.Date{Year: 2026, Month: 3, Day: 1}, 7, core.TimeOfDay{Hour: 19}, "Zq", "Zq"}
	for tag, f := range all {
		if tag == language.English {
			continue
		}
		for _, texts := range [](map[string]bool){keySet(f.Messages), keySet(f.Errors)} {
			for key := range texts {
				en, ok := english[key]
				if !ok || strings.HasPrefix(key, "date.") || key == "time.at" {
					continue
				}
				got := c.Translate(tag.String(), core.Message{Key: key, Args: sample(en, args)})
				if run := englishRun(got, en); run != "" {
					t.Errorf("%s %s: %q holds the English %q", tag, key, got, run)
				}
			}
		}
	}
}

func keySet[V any](m map[string]V) map[string]bool {
	out := map[string]bool{}
	for k := range m {
		out[k] = true
	}
	return out
}

// sample fills format's verbs: a string, date, int or time by their letter.
func sample(format string, base []any) []any {
	set := argSet(format)
	n := 0
	for a := range set {
		if i := atoi(a[:len(a)-1]); i > n {
			n = i
		}
	}
	out := make([]any, n)
	for i := range out {
		out[i] = "Zq"
		if set[itoa(i+1)+"d"] {
			out[i] = 7
		}
	}
	return out
}

// glue are English words no API name is made of (and no word of another
// language written alike, as "in", "no" or "use" are): a run of names ("ios
// android", a list of values) is no sentence; a run with one of these is.
var glue = map[string]bool{"a": true, "an": true, "the": true, "is": true, "it": true, "of": true, "or": true,
	"and": true, "to": true, "on": true, "at": true, "be": true, "must": true, "not": true,
	"with": true, "for": true, "by": true, "as": true, "are": true, "was": true, "has": true,
	"have": true, "this": true, "that": true, "too": true, "than": true, "more": true, "most": true, "your": true,
	"you": true, "one": true, "send": true, "only": true, "already": true}

// englishRun is the first run of two or more words of english that text
// holds, one of them English glue, API and product names aside ("" when
// none).
func englishRun(text, english string) string {
	words := func(s string) []string {
		return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) })
	}
	low := " " + strings.Join(words(text), " ") + " "
	for _, k := range keptWords {
		low = strings.ReplaceAll(low, " "+k+" ", " · ")
	}
	tw, ew := strings.Fields(low), words(english)
	for i := 0; i+1 < len(tw); i++ {
		for j := 0; j+1 < len(ew); j++ {
			if tw[i] == ew[j] && tw[i+1] == ew[j+1] && (glue[tw[i]] || glue[tw[i+1]]) &&
				len(tw[i])+len(tw[i+1]) > 2 { // "a-z" is no phrase
				return tw[i] + " " + tw[i+1]
			}
		}
	}
	return ""
}

// TestErrorsStartAsTheEnglishDoes: one convention for error messages in
// every language, the English one: a message starts in lower case (German
// nouns, names and API words keep their capital: "Feld", "Google", "JSON").
func TestErrorsStartAsTheEnglishDoes(t *testing.T) {
	all, err := ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	src := sourceFormats(t)
	for tag, f := range all {
		for key, raw := range f.Errors {
			en, ok := src[key]
			if !ok || en.format == "" || !unicode.IsLower([]rune(en.format)[0]) {
				continue
			}
			x := mustText(t, key, raw)
			texts := []string{x.Plain}
			if x.Plural != nil {
				texts = texts[:0]
				for _, s := range x.Plural.Forms {
					texts = append(texts, s)
				}
			}
			for _, s := range texts {
				if w := firstWord(s); capitalised(w) && !strings.Contains(en.format, w) && !(tag == language.German && !germanNonNouns[w]) &&
					!(unicode.Is(unicode.Latin, []rune(w)[0]) && !latin(s)) { // a Latin name in Japanese or Russian: "Expo", "Bundle ID"
					t.Errorf("%s %s: %q starts with a capital, the English %q does not", tag, key, s, en.format)
				}
			}
		}
	}
}

// latin: every letter of s is Latin.
func latin(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) && !unicode.Is(unicode.Latin, r) {
			return false
		}
	}
	return true
}

func firstWord(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return strings.TrimRight(f[0], ",:;")
	}
	return ""
}

// capitalised: w starts with a capital and is no API word or acronym (no
// other capital, no Latin letters in a word of another script).
func capitalised(w string) bool {
	rs := []rune(w)
	if len(rs) == 0 || !unicode.IsUpper(rs[0]) {
		return false
	}
	for _, r := range rs[1:] {
		if unicode.IsUpper(r) || r == '-' {
			return false
		}
	}
	return true
}

// germanNonNouns are German words that start a sentence without being
// nouns: articles, pronouns, verbs, adjectives and adverbs.
var germanNonNouns = map[string]bool{}

func init() {
	for _, w := range strings.Fields("Der Die Das Sende Keine Kein Ein Zu Du Eine Unbekannte Dieser Diese Bereits Nicht " +
		"Ungültiger Bestätige Angemeldet Fehlerhafter Fehlerhafte Höchstens Dieses Dies Nur Gib Unbekanntes " +
		"Unbekannter Interner Melde Abgemeldet Überall Fehlerhaftes Ihr Danke Verwende Jedes Ungültige Existiert " +
		"Pro Beantworte Dafür Es Nein Dein Deine Bitte Jede Jeder Alle") {
		germanNonNouns[w] = true
	}
}
