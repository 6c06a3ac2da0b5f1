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
	return out, oneIsOne
}

// freeArgs may use any of their arguments: a long date takes the month's
// name or its number, as the language writes it.
var freeArgs = map[string]bool{"date.long": true}

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
// English arguments (a "one" that is 1 alone may write the count as a
// word).
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
		if got := argSet(x.Plain); !maps.Equal(got, want) && !(freeArgs[key] && subset(got, 4)) {
			t.Errorf("%s: %q uses %v, the English %v", key, x.Plain, keys(got), keys(want))
		}
		return
	}
	if x.Plural.Arg != en.Plural.Arg {
		t.Errorf("%s: the count is argument %d, in English %d", key, x.Plural.Arg, en.Plural.Arg)
	}
	need, oneIsOne := forms(tag)
	for form, text := range x.Plural.Forms {
		got, wantHere := argSet(text), maps.Clone(want)
		if form == "one" && oneIsOne { // "a message": the count may be a word
			count := itoa(x.Plural.Arg) + "d"
			delete(got, count)
			delete(wantHere, count)
		}
		if !maps.Equal(got, wantHere) {
			t.Errorf("%s (%s): %q uses %v, the English %v", key, form, text, keys(got), keys(want))
		}
		if !need[form] && !(form == "other" && tag == language.English) {
			t.Errorf("%s: %s has no form %q", key, tag, form)
		}
	}
	for form := range need {
		if _, ok := x.Plural.Forms[form]; !ok {
			t.Errorf("%s: the form %q is missing", key, form)
		}
	}
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
