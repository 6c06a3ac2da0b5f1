package advice_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"tandem/core"
	"tandem/modules/advice"
)

func TestBankHoldsAtLeast60PiecesInValidThemes(t *testing.T) {
	t.Parallel()
	if n := len(advice.Bank); n < 60 {
		t.Fatalf("the bank holds %d pieces, want at least 60", n)
	}
	ids, texts := map[string]bool{}, map[string]bool{}
	perTheme := map[advice.Theme]int{}
	for _, a := range advice.Bank {
		if ids[a.ID] || a.ID == "" {
			t.Errorf("id %q is empty or used twice", a.ID)
		}
		ids[a.ID] = true
		norm := strings.ToLower(a.Text)
		if texts[norm] {
			t.Errorf("text used twice: %q", a.Text)
		}
		texts[norm] = true
		if !a.Theme.Valid() {
			t.Errorf("%s: theme %q is not one of %v", a.ID, a.Theme, advice.Themes)
		}
		perTheme[a.Theme]++
		if a.Text != strings.TrimSpace(a.Text) || !strings.HasSuffix(a.Text, ".") || utf8.RuneCountInString(a.Text) > 200 {
			t.Errorf("%s: %q is not one short sentence", a.ID, a.Text)
		}
	}
	for _, th := range advice.Themes {
		if perTheme[th] < 5 {
			t.Errorf("theme %s has %d pieces", th, perTheme[th])
		}
	}
	if len(advice.Bank) <= 2*(advice.RepeatWindowDays-1) {
		t.Fatal("the bank is too small for the repeat window")
	}
}

func TestThemeValid(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in string
		ok bool
	}{{"communication", true}, {"quality time", true}, {"trust", true}, {"", false}, {"Fun", false}, {"money", false}} {
		if got := advice.Theme(tc.in).Valid(); got != tc.ok {
			t.Errorf("%q: %v", tc.in, got)
		}
	}
}

func TestPickNeverRepeatsWithin30Days(t *testing.T) {
	t.Parallel()
	start := core.Date{Year: 2025, Month: 1, Day: 1}
	for _, tc := range []struct {
		name  string
		order func(i int) int
		steps int
	}{
		{"120 days in order", func(i int) int { return i }, 120},
		{"moving between zones: dates opened out of order", func(i int) int { return (i * 37) % 101 }, 101},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, user := range []string{"u1", "0198c0de-7a1b-7c3d-8e4f-a1b2c3d4e5f6"} {
				given := map[core.Date]advice.Advice{}
				for i := range tc.steps {
					d := start.AddDays(tc.order(i))
					var nearby []advice.Daily
					for od, a := range given {
						if !od.Before(advice.NearbyFrom(d)) && !od.After(advice.NearbyTo(d)) {
							nearby = append(nearby, advice.Daily{Date: od, AdviceID: a.ID, Theme: a.Theme})
						}
					}
					given[d] = advice.Pick(advice.Bank, user, d, nearby)
				}
				for d, a := range given {
					for od, oa := range given {
						if gap := d.DaysUntil(od); od != d && oa.ID == a.ID && gap < 30 && gap > -30 {
							t.Fatalf("%s: %s on %s and %s", user, a.ID, d, od)
						}
					}
				}
			}
		})
	}
}

func TestPickIsStableAndVaried(t *testing.T) {
	t.Parallel()
	d := core.Date{Year: 2025, Month: 6, Day: 15}
	first := advice.Pick(advice.Bank, "u1", d, nil)
	if again := advice.Pick(advice.Bank, "u1", d, nil); again != first {
		t.Fatalf("pick moved: %v then %v", first, again)
	}
	seen := map[string]bool{}
	for i := range 20 {
		seen[advice.Pick(advice.Bank, fmt.Sprintf("user-%d", i), d, nil).ID] = true
	}
	if len(seen) < 10 {
		t.Fatalf("20 users share only %d pieces", len(seen))
	}
	around := []advice.Daily{{Date: d.AddDays(-1), AdviceID: "x", Theme: advice.ThemeFun},
		{Date: d.AddDays(1), AdviceID: "y", Theme: advice.ThemeTrust}}
	for i := range 50 {
		if a := advice.Pick(advice.Bank, fmt.Sprintf("u%d", i), d, around); a.Theme == advice.ThemeFun || a.Theme == advice.ThemeTrust {
			t.Fatalf("%s repeats a neighbour's theme", a.ID)
		}
	}
}
