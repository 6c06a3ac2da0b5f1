package admin

import (
	"context"
	"slices"
	"strings"

	"tandem/core"
)

// AuditedFlags makes administrators' flag writes, for the API, the console
// and the command line alike: each goes through Apply as "flag.create",
// "flag.toggle", "flag.update" or "flag.delete" on "flag:KEY", with the flag
// before and after as record renders it.
type AuditedFlags[F, D, P any] struct {
	log    *Service
	flags  FlagWrites[F, D, P]
	record func(F) any
	keyOf  func(D) string
}

// NewAuditedFlags is a plain constructor: record renders a flag for the log,
// keyOf is the key a new flag is asked for under.
func NewAuditedFlags[F, D, P any](log *Service, flags FlagWrites[F, D, P], record func(F) any, keyOf func(D) string) *AuditedFlags[F, D, P] {
	return &AuditedFlags[F, D, P]{log: log, flags: flags, record: record, keyOf: keyOf}
}

// Create creates a flag; nothing stands before it.
func (a *AuditedFlags[F, D, P]) Create(ctx context.Context, d D) (F, error) {
	c := Change{Action: "flag.create", Target: "flag:" + strings.TrimSpace(a.keyOf(d))}
	return run(ctx, a.log, c, a.record, func(ctx context.Context) (F, error) { return a.flags.Create(ctx, d) })
}

// Toggle switches a flag on or off.
func (a *AuditedFlags[F, D, P]) Toggle(ctx context.Context, key string, on *bool) (F, error) {
	return a.change(ctx, "flag.toggle", key, a.record, func(ctx context.Context) (F, error) { return a.flags.Toggle(ctx, key, on) })
}

// Update changes a flag's fields.
func (a *AuditedFlags[F, D, P]) Update(ctx context.Context, key string, p P) (F, error) {
	return a.change(ctx, "flag.update", key, a.record, func(ctx context.Context) (F, error) { return a.flags.Update(ctx, key, p) })
}

// Delete deletes a flag; nothing is recorded after it.
func (a *AuditedFlags[F, D, P]) Delete(ctx context.Context, key string) error {
	_, err := a.change(ctx, "flag.delete", key, func(F) any { return nil }, func(ctx context.Context) (F, error) {
		var none F
		return none, a.flags.Delete(ctx, key)
	})
	return err
}

// change writes to an existing flag, the flag as it was being the state
// before. A flag that cannot be read because it does not exist or its key is
// bad has no state before, and the write itself reports the error: the
// answer is the write's (a missing isEnabled is 400 even for an unknown
// key), and the attempt is on record.
func (a *AuditedFlags[F, D, P]) change(ctx context.Context, action, key string, after func(F) any,
	write func(context.Context) (F, error)) (F, error) {
	read := func(ctx context.Context) (F, error) { return a.flags.Get(ctx, key) }
	before, err := stateBefore(ctx, read, a.record, core.KindNotFound, core.KindInvalid)
	if err != nil {
		var none F
		return none, err
	}
	return run(ctx, a.log, Change{Action: action, Target: "flag:" + key, Before: before}, after, write)
}

// AuditedPolicies sets the platforms' update policies for the API, the
// console and the command line alike: each through Apply as
// "version_policy.set" on "platform:NAME", with the policy before (null
// when there was none) and after as record renders it.
type AuditedPolicies[P, D any] struct {
	log      *Service
	policies PolicyWrites[P, D]
	record   func(P) any
}

// NewAuditedPolicies is a plain constructor: record renders a policy for the log.
func NewAuditedPolicies[P, D any](log *Service, policies PolicyWrites[P, D], record func(P) any) *AuditedPolicies[P, D] {
	return &AuditedPolicies[P, D]{log: log, policies: policies, record: record}
}

// SetPolicy sets the platform's policy. An unknown platform is refused by
// the read, before anything is recorded.
func (a *AuditedPolicies[P, D]) SetPolicy(ctx context.Context, platform string, d D) (P, error) {
	read := func(ctx context.Context) (P, error) { return a.policies.Policy(ctx, platform) }
	before, err := stateBefore(ctx, read, a.record, core.KindNotFound)
	if err != nil {
		var none P
		return none, err
	}
	c := Change{Action: "version_policy.set", Target: "platform:" + platform, Before: before}
	return run(ctx, a.log, c, a.record, func(ctx context.Context) (P, error) { return a.policies.SetPolicy(ctx, platform, d) })
}

// AuditedFeedback marks feedback handled through Apply, as
// "feedback.handle" on "feedback:ID", with the message before and after as
// record renders it.
type AuditedFeedback[F any] struct {
	log      *Service
	feedback FeedbackWrites[F]
	record   func(F) any
}

// NewAuditedFeedback is a plain constructor: record renders a message for the log.
func NewAuditedFeedback[F any](log *Service, feedback FeedbackWrites[F], record func(F) any) *AuditedFeedback[F] {
	return &AuditedFeedback[F]{log: log, feedback: feedback, record: record}
}

// MarkHandled marks the message handled by the acting administrator. A
// message that cannot be read is refused before anything is recorded.
func (a *AuditedFeedback[F]) MarkHandled(ctx context.Context, id string) (F, error) {
	read := func(ctx context.Context) (F, error) { return a.feedback.Get(ctx, id) }
	before, err := stateBefore(ctx, read, a.record)
	if err != nil {
		var none F
		return none, err
	}
	p, _ := core.PrincipalFrom(ctx)
	c := Change{Action: "feedback.handle", Target: "feedback:" + id, Before: before}
	return run(ctx, a.log, c, a.record, func(ctx context.Context) (F, error) { return a.feedback.MarkHandled(ctx, id, p.Email) })
}

// run makes the change c through Apply: write runs once the entry is
// stored, and its result, as after renders it, completes the entry (a
// failed write records none). It returns write's result.
func run[T any](ctx context.Context, log *Service, c Change, after func(T) any, write func(context.Context) (T, error)) (T, error) {
	var out T
	err := log.Apply(ctx, c, func(ctx context.Context) (any, error) {
		var err error
		if out, err = write(ctx); err != nil {
			return nil, err
		}
		return after(out), nil
	})
	return out, err
}

// stateBefore is the state a change starts from, as record renders it. A
// read failing with one of the kinds absent means there is nothing before
// the change (nil: null in the log); any other failure refuses the change.
func stateBefore[T any](ctx context.Context, read func(context.Context) (T, error), record func(T) any, absent ...core.Kind) (any, error) {
	v, err := read(ctx)
	switch {
	case err == nil:
		return record(v), nil
	case slices.ContainsFunc(absent, func(k core.Kind) bool { return core.IsKind(err, k) }):
		return nil, nil
	}
	return nil, err
}
