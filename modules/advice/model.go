// Package advice holds the daily advice: one piece of relationship advice per
// user and day (the date in the user's timezone), stable for the whole day,
// picked from a bank written for the app, and not repeated for the user
// within RepeatWindowDays.
package advice

import (
	"hash/fnv"
	"time"

	"tandem/core"
)

// Theme groups the bank's advice.
type Theme string

const (
	ThemeCommunication Theme = "communication"
	ThemeAppreciation  Theme = "appreciation"
	ThemeQualityTime   Theme = "quality time"
	ThemeConflict      Theme = "conflict"
	ThemeGrowth        Theme = "growth"
	ThemeFun           Theme = "fun"
	ThemeIntimacy      Theme = "intimacy"
	ThemeTrust         Theme = "trust"
)

// Themes are every theme, in the bank's order.
var Themes = []Theme{ThemeCommunication, ThemeAppreciation, ThemeQualityTime, ThemeConflict, ThemeGrowth, ThemeFun,
	ThemeIntimacy, ThemeTrust}

// Valid reports whether t is one of Themes.
func (t Theme) Valid() bool {
	for _, k := range Themes {
		if t == k {
			return true
		}
	}
	return false
}

// Advice is one piece of the bank; its ID is stable (the repeat rule
// compares it).
type Advice struct {
	ID    string
	Text  string
	Theme Theme
}

// Daily is the advice a user got for one date. Text and Theme are copied
// from the bank, so the day's advice never changes, even with the bank.
// CreatedAt is when it was first produced (the record's _creationTime).
type Daily struct {
	ID        string
	UserID    string
	Date      core.Date
	AdviceID  string
	Text      string
	Theme     Theme
	CreatedAt time.Time
}

// RepeatWindowDays: a piece of advice returns to a user no sooner than this
// many days later. Dates are compared both ways: a user who moves west may
// meet an earlier date again.
const RepeatWindowDays = 30

// NearbyFrom and NearbyTo bound the dates whose advice day's pick must
// avoid: every date less than RepeatWindowDays away, either side.
func NearbyFrom(day core.Date) core.Date { return day.AddDays(-(RepeatWindowDays - 1)) }
func NearbyTo(day core.Date) core.Date   { return day.AddDays(RepeatWindowDays - 1) }

// Pick chooses the advice of day for a user, given the user's advice of the
// nearby dates: among the bank's pieces not given on any of them, preferring
// a theme other than the ones of the dates right before and after, the one a
// stable hash of (userID, day) points at. The same inputs always give the
// same advice, in every process.
func Pick(bank []Advice, userID string, day core.Date, nearby []Daily) Advice {
	used := map[string]bool{}
	neighbour := map[Theme]bool{}
	for _, d := range nearby {
		used[d.AdviceID] = true
		if gap := day.DaysUntil(d.Date); gap == 1 || gap == -1 {
			neighbour[d.Theme] = true
		}
	}
	var fresh, varied []Advice
	for _, a := range bank {
		if used[a.ID] {
			continue
		}
		fresh = append(fresh, a)
		if !neighbour[a.Theme] {
			varied = append(varied, a)
		}
	}
	candidates := varied
	if len(candidates) == 0 {
		candidates = fresh
	}
	if len(candidates) == 0 {
		candidates = bank // only with a bank smaller than the window: never with Bank
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(userID + "|" + day.String()))
	return candidates[h.Sum64()%uint64(len(candidates))]
}
