package core

import "hash/fnv"

// Given is an item a daily rotation handed out on a date, with its group (a
// theme, a category) so the next day can prefer another.
type Given struct {
	Date  Date
	ID    string
	Group string
}

// PickDaily chooses the item of day for a seed (a user, a couple), given
// what the seed was handed on the nearby dates: among the bank's items not
// given on any of them, preferring a group other than the ones of the dates
// right before and after, the one a stable hash of (seed, day) points at.
// The same inputs always give the same item, in every process, so a pick
// needs no lock: two requests racing for it agree.
func PickDaily[T any](bank []T, key func(T) (id, group string), seed string, day Date, nearby []Given) T {
	used := map[string]bool{}
	neighbour := map[string]bool{}
	for _, g := range nearby {
		used[g.ID] = true
		if gap := day.DaysUntil(g.Date); gap == 1 || gap == -1 {
			neighbour[g.Group] = true
		}
	}
	var fresh, varied []T
	for _, item := range bank {
		id, group := key(item)
		if used[id] {
			continue
		}
		fresh = append(fresh, item)
		if !neighbour[group] {
			varied = append(varied, item)
		}
	}
	candidates := varied
	if len(candidates) == 0 {
		candidates = fresh
	}
	if len(candidates) == 0 {
		candidates = bank // only with a bank smaller than the window
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(seed + "|" + day.String()))
	return candidates[h.Sum64()%uint64(len(candidates))]
}
