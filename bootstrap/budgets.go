package bootstrap

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"tandem/core"
	"tandem/modules/events"
	"tandem/modules/idempotency"
	"tandem/modules/memories"
	"tandem/modules/messages"
	"tandem/modules/moods"
)

const writeBudgetsVar = "TANDEM_WRITE_BUDGETS"

// WriteBudgets are the per-user write budgets (TANDEM_WRITE_BUDGETS), each
// its module's default unless the variable names it.
type WriteBudgets struct {
	Messages        core.WriteBudget
	Events          core.WriteBudget
	Memories        core.WriteBudget
	Moods           core.WriteBudget
	IdempotencyKeys core.WriteBudget
}

// defaultWriteBudgets are the modules' own budgets.
func defaultWriteBudgets() WriteBudgets {
	return WriteBudgets{Messages: messages.DefaultBudget, Events: events.DefaultBudget, Memories: memories.DefaultBudget,
		Moods: moods.DefaultBudget, IdempotencyKeys: idempotency.DefaultBudget}
}

// namedBudget is one budget of b as TANDEM_WRITE_BUDGETS names it.
type namedBudget struct {
	name   string
	budget *core.WriteBudget
}

// byName are the budgets as TANDEM_WRITE_BUDGETS names them, in its order.
func (b *WriteBudgets) byName() []namedBudget {
	return []namedBudget{{"messages", &b.Messages}, {"events", &b.Events}, {"memories", &b.Memories},
		{"moods", &b.Moods}, {"idempotency_keys", &b.IdempotencyKeys}}
}

// String is the form TANDEM_WRITE_BUDGETS takes, every budget named.
func (b WriteBudgets) String() string {
	var parts []string
	for _, n := range b.byName() {
		parts = append(parts, fmt.Sprintf("%s=%d/%d", n.name, n.budget.PerMinute, n.budget.PerDay))
	}
	return strings.Join(parts, ",")
}

// writeBudgets parses TANDEM_WRITE_BUDGETS: a comma list of
// NAME=PERMINUTE/PERDAY (names: messages, events, memories, moods,
// idempotency_keys; positive whole numbers), each replacing that budget's
// default; a name left out keeps its default.
func (l *loader) writeBudgets() WriteBudgets {
	b := defaultWriteBudgets()
	v := strings.TrimSpace(l.getenv(writeBudgetsVar))
	names := b.byName()
	seen := map[string]bool{}
	for _, item := range strings.Split(v, ",") {
		if item = strings.TrimSpace(item); item == "" {
			continue
		}
		name, rates, _ := strings.Cut(item, "=")
		name = strings.TrimSpace(name)
		i := slices.IndexFunc(names, func(n namedBudget) bool { return n.name == name })
		if i < 0 {
			l.fail(writeBudgetsVar, "%q names no budget (messages, events, memories, moods, idempotency_keys)", item)
			return defaultWriteBudgets()
		}
		if seen[name] {
			l.fail(writeBudgetsVar, "%s is named twice", name)
			return defaultWriteBudgets()
		}
		seen[name] = true
		perMinute, perDay, ok := strings.Cut(rates, "/")
		m, merr := strconv.Atoi(strings.TrimSpace(perMinute))
		d, derr := strconv.Atoi(strings.TrimSpace(perDay))
		if !ok || merr != nil || derr != nil || m <= 0 || d <= 0 {
			l.fail(writeBudgetsVar, "%q is not NAME=PERMINUTE/PERDAY with positive whole numbers", item)
			return defaultWriteBudgets()
		}
		names[i].budget.PerMinute, names[i].budget.PerDay = m, d
	}
	l.took(writeBudgetsVar, b.String())
	return b
}
