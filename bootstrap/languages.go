package bootstrap

import (
	"sync"

	"go.uber.org/fx"

	"tandem/adapters/httpapi"
	"tandem/adapters/i18n"
	"tandem/core"
	"tandem/modules/advice"
	"tandem/modules/questions"
)

// languages loads the embedded catalogs, with the English of the daily
// questions and advice that live in their modules, for every module that
// writes to a person (core.Translator) and for the API's answers.
var languages = fx.Provide(
	catalogs,
	func(c *i18n.Catalogs) core.Translator { return c },
	func(c *i18n.Catalogs) httpapi.Languages { return c },
)

// catalogs are read once per process: they are embedded and never change,
// and reading them costs 16 ms (66 under the race detector) for every app
// a test starts.
var catalogs = sync.OnceValues(func() (*i18n.Catalogs, error) { return i18n.Load(Sources()) })

// Sources are the English texts kept in the modules, by catalog key.
func Sources() map[string]string {
	out := make(map[string]string, len(questions.Bank)+len(advice.Bank))
	for _, q := range questions.Bank {
		out[questions.TextKey(q.ID)] = q.Text
	}
	for _, a := range advice.Bank {
		out[advice.TextKey(a.ID)] = a.Text
	}
	return out
}
