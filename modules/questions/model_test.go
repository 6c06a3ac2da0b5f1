package questions_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"tandem/core"
	"tandem/modules/questions"
)

func TestBankHoldsAtLeast120UniqueQuestionsInValidCategories(t *testing.T) {
	t.Parallel()
	if n := len(questions.Bank); n < 120 {
		t.Fatalf("the bank holds %d questions, want at least 120", n)
	}
	ids, texts := map[string]bool{}, map[string]bool{}
	perCategory := map[questions.Category]int{}
	for _, q := range questions.Bank {
		if ids[q.ID] || q.ID == "" {
			t.Errorf("id %q is empty or used twice", q.ID)
		}
		ids[q.ID] = true
		norm := strings.ToLower(strings.TrimSpace(q.Text))
		if texts[norm] {
			t.Errorf("text used twice: %q", q.Text)
		}
		texts[norm] = true
		if !q.Category.Valid() {
			t.Errorf("%s: category %q is not one of %v", q.ID, q.Category, questions.Categories)
		}
		perCategory[q.Category]++
		if q.Text != strings.TrimSpace(q.Text) || !strings.HasSuffix(q.Text, "?") || utf8.RuneCountInString(q.Text) > 200 {
			t.Errorf("%s: %q is not a short question", q.ID, q.Text)
		}
	}
	for _, c := range questions.Categories {
		if perCategory[c] < 10 {
			t.Errorf("category %s has %d questions, want at least 10", c, perCategory[c])
		}
	}
	// The window can never exhaust the bank: a pick avoids at most 58 dates.
	if len(questions.Bank) <= 2*(questions.RepeatWindowDays-1) {
		t.Fatalf("the bank is too small for the repeat window")
	}
}

func TestCategoryValid(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in string
		ok bool
	}{{"fun", true}, {"deep", true}, {"memories", true}, {"future", true}, {"gratitude", true}, {"intimacy", true},
		{"everyday", true}, {"", false}, {"Fun", false}, {"spicy", false}} {
		if got := questions.Category(tc.in).Valid(); got != tc.ok {
			t.Errorf("%q: %v", tc.in, got)
		}
	}
}

func date(s string) core.Date {
	d, err := core.ParseDate(s)
	if err != nil {
		panic(err)
	}
	return d
}

// simulate opens days for one couple in the given order, each picked by Pick
// over the nearby dates already opened, and returns the question id per date.
func simulate(bank []questions.Question, couple string, days []core.Date) map[core.Date]questions.Question {
	asked := map[core.Date]questions.Question{}
	for _, d := range days {
		var nearby []questions.Daily
		for od, q := range asked {
			if !od.Before(questions.NearbyFrom(d)) && !od.After(questions.NearbyTo(d)) {
				nearby = append(nearby, questions.Daily{Date: od, QuestionID: q.ID, Category: q.Category})
			}
		}
		asked[d] = questions.Pick(bank, couple, d, nearby)
	}
	return asked
}

// noRepeatWithin fails when a question comes back sooner than window days.
func noRepeatWithin(t *testing.T, asked map[core.Date]questions.Question, window int) {
	t.Helper()
	for d, q := range asked {
		for od, oq := range asked {
			if od != d && oq.ID == q.ID {
				if gap := d.DaysUntil(od); gap < window && gap > -window {
					t.Fatalf("%s asked on %s and %s, %d days apart", q.ID, d, od, gap)
				}
			}
		}
	}
}

func TestPickNeverRepeatsAQuestionWithin30Days(t *testing.T) {
	t.Parallel()
	start := date("2025-01-01")
	cases := []struct {
		name  string
		order func(i int) int // the day offset opened at step i
		steps int
	}{
		{"120 consecutive days in order", func(i int) int { return i }, 120},
		{"a partner far east opens tomorrow first, every day", func(i int) int { return i + 1 - 2*(i%2) }, 120},
		{"dates opened in a scattered order", func(i int) int { return (i * 37) % 101 }, 101},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, couple := range []string{"p1", "p2", "0198c0de-7a1b-7c3d-8e4f-a1b2c3d4e5f6"} {
				days := make([]core.Date, tc.steps)
				for i := range days {
					days[i] = start.AddDays(tc.order(i))
				}
				asked := simulate(questions.Bank, couple, days)
				if len(asked) != tc.steps {
					t.Fatalf("%d dates opened", len(asked))
				}
				noRepeatWithin(t, asked, questions.RepeatWindowDays)
			}
		})
	}
}

func TestPickIsStableAndVaried(t *testing.T) {
	t.Parallel()
	d := date("2025-06-15")
	nearby := []questions.Daily{{Date: d.AddDays(-1), QuestionID: "fun-01", Category: questions.CategoryFun}}
	first := questions.Pick(questions.Bank, "p1", d, nearby)
	for range 5 {
		if again := questions.Pick(questions.Bank, "p1", d, nearby); again != first {
			t.Fatalf("pick moved: %v then %v", first, again)
		}
	}
	// Different couples on the same date mostly get different questions.
	seen := map[string]bool{}
	for i := range 20 {
		seen[questions.Pick(questions.Bank, fmt.Sprintf("couple-%d", i), d, nil).ID] = true
	}
	if len(seen) < 10 {
		t.Fatalf("20 couples share only %d questions", len(seen))
	}
	// The categories of the dates right before and after are avoided while
	// others are left; a date further away does not count.
	for i := range 50 {
		couple := fmt.Sprintf("c%d", i)
		around := []questions.Daily{
			{Date: d.AddDays(-1), QuestionID: "x1", Category: questions.CategoryDeep},
			{Date: d.AddDays(1), QuestionID: "x2", Category: questions.CategoryFun},
		}
		if q := questions.Pick(questions.Bank, couple, d, around); q.Category == questions.CategoryDeep || q.Category == questions.CategoryFun {
			t.Fatalf("%s: %s follows a %s and precedes a %s question", couple, q.ID, questions.CategoryDeep, questions.CategoryFun)
		}
	}
	// A bank smaller than the window still answers, from what is left, then from all.
	tiny := []questions.Question{{ID: "a", Category: questions.CategoryFun}, {ID: "b", Category: questions.CategoryFun}}
	if q := questions.Pick(tiny, "p1", d, []questions.Daily{{Date: d.AddDays(-1), QuestionID: "a", Category: questions.CategoryFun}}); q.ID != "b" {
		t.Fatalf("tiny bank, one left: %s", q.ID)
	}
	used := []questions.Daily{{Date: d.AddDays(-2), QuestionID: "a"}, {Date: d.AddDays(-3), QuestionID: "b"}}
	if q := questions.Pick(tiny, "p1", d, used); q.ID == "" {
		t.Fatal("tiny bank, none left: no question")
	}
}

func TestNearbyWindow(t *testing.T) {
	t.Parallel()
	d := date("2025-03-01")
	if from, to := questions.NearbyFrom(d), questions.NearbyTo(d); from.String() != "2025-01-31" || to.String() != "2025-03-30" {
		t.Fatalf("window %s..%s", from, to)
	}
}
