package i18n

import (
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"golang.org/x/text/feature/plural"
	"golang.org/x/text/language"

	"tandem/core"
	"tandem/modules/advice"
	"tandem/modules/questions"
)

// verb is one printf verb: its explicit index, if any, and its letter.
var verb = regexp.MustCompile(`%(\[(\d+)\])?[-+# 0]*\d*(\.\d+)?([a-zA-Z%])`)

// argSet is which arguments a text uses and how: "1s", "2d"… (%[n]x and
// plain verbs numbered in order; %% is no argument).
func argSet(s string) map[string]bool {
	out := map[string]bool{}
	next := 1
	for _, m := range verb.FindAllStringSubmatch(s, -1) {
		if m[4] == "%" {
			continue
		}
		n := next
		if m[2] != "" {
			n = atoi(m[2])
		}
		next = n + 1
		out[itoa(n)+m[4]] = true
	}
	return out
}

func atoi(s string) int {
	n := 0
	for _, r := range s {
		n = n*10 + int(r-'0')
	}
	return n
}

func itoa(n int) string { return strings.TrimLeft(string(rune('0'+n/10))+string(rune('0'+n%10)), "0") }

// forms are the plural categories a language uses for whole numbers (x/text's
// CLDR rules), and whether "one" is the number 1 alone.
func forms(t language.Tag) (map[string]bool, bool) {
	names := map[plural.Form]string{plural.Other: "other", plural.Zero: "zero", plural.One: "one", plural.Two: "two",
		plural.Few: "few", plural.Many: "many"}
	out, oneIsOne := map[string]bool{}, true
	for n := 0; n <= 1000; n++ {
		f := plural.Cardinal.MatchPlural(t, n, 0, 0, 0, 0)
		out[names[f]] = true
		if f == plural.One && n != 1 {
			oneIsOne = false
		}
	}
	return out, oneIsOne && out["one"] // Japanese has no "one": each count is "other"
}

// freeArgs may use any of their first n arguments: a long date takes the
// month's name or its number, a time its "HH:mm" or its hour and minutes,
// as the language writes them.
var freeArgs = map[string]int{"date.long": 4, "time.at": 3}

// TestCatalogsAreComplete: every catalog names every text English names,
// with the same arguments, in the plural forms its language has; and
// translates every error format of the code, question and advice of the
// banks, no more.
func TestCatalogsAreComplete(t *testing.T) {
	all, err := ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	en := all[language.English]
	errs, qs, as := sourceFormats(t), map[string]bool{}, map[string]bool{}
	for _, q := range questions.Bank {
		qs[q.ID] = true
	}
	for _, a := range advice.Bank {
		as[a.ID] = true
	}
	if len(all) < 7 {
		t.Fatalf("%d catalogs, want English, German, French, Spanish, Brazilian Portuguese, Japanese, Russian", len(all))
	}
	for tag, f := range all {
		t.Run(tag.String(), func(t *testing.T) {
			sameKeys(t, "messages", slices.Collect(maps.Keys(en.Messages)), slices.Collect(maps.Keys(f.Messages)))
			for key, raw := range f.Messages {
				if want, ok := en.Messages[key]; ok {
					checkText(t, tag, key, mustText(t, key, want), mustText(t, key, raw))
				}
			}
			if tag == language.English {
				return // English errors, questions and advice are the code's own
			}
			sameKeys(t, "errors", slices.Collect(maps.Keys(errs)), slices.Collect(maps.Keys(f.Errors)))
			for key, raw := range f.Errors {
				if src, ok := errs[key]; ok {
					checkText(t, tag, "errors "+key, englishText(src.format), mustText(t, key, raw))
				}
			}
			sameKeys(t, "questions", slices.Collect(maps.Keys(qs)), slices.Collect(maps.Keys(f.Questions)))
			sameKeys(t, "advice", slices.Collect(maps.Keys(as)), slices.Collect(maps.Keys(f.Advice)))
			for id, text := range f.Questions {
				if strings.TrimSpace(text) == "" {
					t.Errorf("question %s is empty", id)
				}
			}
		})
	}
}

// englishText is an English format of the code as a catalog text: its
// plural choices ({N|one|other}) make it a plural of two forms.
func englishText(format string) Text {
	if arg, one, other, ok := core.EnglishPlural(format); ok {
		return Text{Plural: &Plural{Arg: arg, Forms: map[string]string{"one": one, "other": other}}}
	}
	return Text{Plain: format}
}

func mustText(t *testing.T, key string, raw []byte) Text {
	t.Helper()
	x, err := ParseText(raw)
	if err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	return x
}

// checkText compares a translation with the English: a plain text for a
// plain text, the language's plural forms for a plural, each with the
// English arguments (a "one" that is 1 alone, or an exact "=1", may write
// the count as a word). Where the English says one thing without its count
// ("a message"), a language whose "one" is not the number 1 alone (French
// and Portuguese 0 and 1, Russian 21, Japanese every count) has an exact
// "=1" form, as ICU's rule wants: "un message", not "1 message".
func checkText(t *testing.T, tag language.Tag, key string, en, x Text) {
	t.Helper()
	want := argSet(en.Plain)
	if en.Plural != nil {
		want = argSet(en.Plural.Forms["other"])
	}
	if (en.Plural == nil) != (x.Plural == nil) {
		t.Errorf("%s: plural in one catalog only", key)
		return
	}
	if x.Plural == nil {
		if got := argSet(x.Plain); !maps.Equal(got, want) && !(freeArgs[key] > 0 && subset(got, freeArgs[key])) {
			t.Errorf("%s: %q uses %v, the English %v", key, x.Plain, keys(got), keys(want))
		}
		return
	}
	if x.Plural.Arg != en.Plural.Arg {
		t.Errorf("%s: the count is argument %d, in English %d", key, x.Plural.Arg, en.Plural.Arg)
	}
	need, oneIsOne := forms(tag)
	count := itoa(x.Plural.Arg) + "d"
	for form, text := range x.Plural.Forms {
		got, wantHere := argSet(text), maps.Clone(want)
		if form == "=1" || form == "one" && oneIsOne { // "a message": the count may be a word
			delete(got, count)
			delete(wantHere, count)
		}
		if !maps.Equal(got, wantHere) && !(freeArgs[key] > 0 && subset(got, freeArgs[key])) {
			t.Errorf("%s (%s): %q uses %v, the English %v", key, form, text, keys(got), keys(want))
		}
		if !need[form] && !(form == "other" && tag == language.English) && !strings.HasPrefix(form, "=") {
			t.Errorf("%s: %s has no form %q", key, tag, form)
		}
	}
	for form := range need {
		if _, ok := x.Plural.Forms[form]; !ok {
			t.Errorf("%s: the form %q is missing", key, form)
		}
	}
	if _, exact := x.Plural.Forms["=1"]; !exact && !oneIsOne && wordForOne(en) {
		t.Errorf("%s: English says one without its count (%q); %s's \"one\" is not 1 alone: add an \"=1\" form",
			key, en.Plural.Forms["one"], tag)
	}
}

// wordForOne: the English plural writes its count in "other" and not in
// "one" ("a message", "%d messages").
func wordForOne(en Text) bool {
	if en.Plural == nil {
		return false
	}
	count := itoa(en.Plural.Arg) + "d"
	return argSet(en.Plural.Forms["other"])[count] && !argSet(en.Plural.Forms["one"])[count]
}

// notCounts are English texts whose number counts nothing a noun agrees
// with: an ordinal ("Day 100"), a label ("Sessions signed out: 3"), a bound
// ("from 1 to 50"), a number in brackets.
var notCounts = map[string]bool{
	"milestone.days.body": true, "milestone.anniversary.body": true,
	"mail.secured.sessions": true, "mail.secured.passkeys": true,
	"core.limitRange": true, "httpapi.processHoldsAllLiveStreams": true,
}

// TestCountsHavePluralForms: every English text with a count (a %d verb)
// is a plural, in the code ({N|one|other}) or in en.json; the catalogs
// follow it (TestCatalogsAreComplete: plural in one catalog only).
func TestCountsHavePluralForms(t *testing.T) {
	all, err := ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	english := map[string]Text{}
	for key, raw := range all[language.English].Messages {
		english[key] = mustText(t, key, raw)
	}
	for key, src := range sourceFormats(t) {
		english[key] = englishText(src.format)
	}
	for key, x := range english {
		if x.Plural == nil && !notCounts[key] && hasCount(argSet(x.Plain)) {
			t.Errorf("%s: %q counts something in one form only: write its plural forms", key, x.Plain)
		}
	}
}

func hasCount(args map[string]bool) bool {
	for a := range args {
		if strings.HasSuffix(a, "d") {
			return true
		}
	}
	return false
}

// subset: every argument is one of the first n.
func subset(args map[string]bool, n int) bool {
	for a := range args {
		if i := atoi(a[:len(a)-1]); i < 1 || i > n {
			return false
		}
	}
	return true
}

func sameKeys(t *testing.T, what string, want, got []string) {
	t.Helper()
	w, g := map[string]bool{}, map[string]bool{}
	for _, k := range want {
		w[k] = true
	}
	for _, k := range got {
		g[k] = true
		if !w[k] {
			t.Errorf("%s: %q is not in the source (stale?)", what, k)
		}
	}
	for _, k := range want {
		if !g[k] {
			t.Errorf("%s: %q is missing", what, k)
		}
	}
}

func keys(m map[string]bool) []string {
	out := slices.Collect(maps.Keys(m))
	sort.Strings(out)
	return out
}
