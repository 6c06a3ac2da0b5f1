package core

import (
	"fmt"
	"regexp"
	"strconv"
)

// An English format whose words follow a count holds plural choices
// {N|one|other}: the text for one when argument N (1-based) is 1, for other
// otherwise, such as "{1|%[1]d notification|%[1]d notifications} marked as
// read" or "pushed to %d of %d {2|device|devices}". Every choice of a format
// names the same argument: the format is then a plural message of two whole
// forms, as the catalogs' translations are ({"one": ..., "other": ...,
// "arg": N}). A verb inside a choice names its argument ("%[1]d"), so that
// both forms read the same arguments.
var choice = regexp.MustCompile(`\{(\d+)\|([^{}|]*)\|([^{}|]*)\}`)

// Format is the English of format filled with args: each plural choice
// resolved by its count, then as fmt.Sprintf writes it (format as written
// when there are no args).
func Format(format string, args ...any) string {
	if arg, one, other, ok := EnglishPlural(format); ok {
		format = other
		if arg <= len(args) && isOne(args[arg-1]) {
			format = one
		}
	}
	if len(args) == 0 {
		return format
	}
	return fmt.Sprintf(format, args...)
}

// EnglishPlural is format's two whole forms when it holds plural choices:
// the count's argument number, the text for one and for other (ok is false
// for a format without choices, or whose choices name different arguments).
func EnglishPlural(format string) (arg int, one, other string, ok bool) {
	ms := choice.FindAllStringSubmatch(format, -1)
	if len(ms) == 0 {
		return 0, "", "", false
	}
	for _, m := range ms {
		n, err := strconv.Atoi(m[1])
		if err != nil || n < 1 || (arg != 0 && n != arg) {
			return 0, "", "", false
		}
		arg = n
	}
	one = choice.ReplaceAllString(format, "$2")
	other = choice.ReplaceAllString(format, "$3")
	return arg, one, other, true
}

// isOne: the count is the number 1 (English's "one").
func isOne(a any) bool {
	switch n := a.(type) {
	case int:
		return n == 1
	case int64:
		return n == 1
	case uint:
		return n == 1
	case uint64:
		return n == 1
	}
	return false
}
