package core_test

import (
	"slices"
	"strconv"
	"testing"

	"tandem/core"
)

func TestPickDaily(t *testing.T) {
	t.Parallel()
	type item struct{ id, group string }
	bank := []item{{"a", "x"}, {"b", "x"}, {"c", "y"}, {"d", "z"}}
	key := func(i item) (string, string) { return i.id, i.group }
	day := core.Date{Year: 2026, Month: 3, Day: 10}
	first := core.PickDaily(bank, key, "seed", day, nil)
	if again := core.PickDaily(bank, key, "seed", day, nil); again != first {
		t.Fatalf("not stable: %v then %v", first, again)
	}
	for _, tc := range []struct {
		name   string
		nearby []core.Given
		allow  []string
	}{
		{"never an item given nearby", []core.Given{{Date: day.AddDays(-20), ID: "a"}, {Date: day.AddDays(5), ID: "c"}}, []string{"b", "d"}},
		{"another group than yesterday's", []core.Given{{Date: day.AddDays(-1), ID: "a", Group: "x"}}, []string{"c", "d"}},
		{"a used group when nothing else is fresh", []core.Given{{Date: day.AddDays(-1), ID: "c", Group: "x"}, {Date: day.AddDays(-2), ID: "d"}, {Date: day.AddDays(-3), ID: "a"}}, []string{"b"}},
		{"the bank again when all were given", []core.Given{{Date: day.AddDays(-1), ID: "a"}, {Date: day.AddDays(-2), ID: "b"}, {Date: day.AddDays(-3), ID: "c"}, {Date: day.AddDays(-4), ID: "d"}}, []string{"a", "b", "c", "d"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for seed := range 20 {
				got := core.PickDaily(bank, key, strconv.Itoa(seed), day, tc.nearby)
				if !slices.Contains(tc.allow, got.id) {
					t.Fatalf("seed %d picked %v, want one of %v", seed, got, tc.allow)
				}
			}
		})
	}
}
