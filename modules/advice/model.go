// Package advice holds the daily advice: one piece of relationship advice per
// user and day (the date in the user's timezone), stable for the whole day,
// picked from a bank written for the app, and not repeated for the user
// within RepeatWindowDays.
package advice

import (
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

// Pick chooses the advice of day for a user with core.PickDaily: no repeat
// within the window, another theme than the days around it when it can.
func Pick(bank []Advice, userID string, day core.Date, nearby []Daily) Advice {
	given := make([]core.Given, len(nearby))
	for i, d := range nearby {
		given[i] = core.Given{Date: d.Date, ID: d.AdviceID, Group: string(d.Theme)}
	}
	key := func(a Advice) (string, string) { return a.ID, string(a.Theme) }
	return core.PickDaily(bank, key, userID, day, given)
}
