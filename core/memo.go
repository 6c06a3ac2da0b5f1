package core

import (
	"context"
	"sync"
)

// A read memo lets one request that only reads ask several modules the same
// question (the caller's partnership, an account) and pay for it once. It
// is opt-in per request (WithReadMemo): a request that writes must see its
// own writes, so it never carries one.
type readMemo struct {
	mu      sync.Mutex
	answers map[string]memoAnswer
}

type memoAnswer struct {
	value any
	err   error
}

type readMemoKey struct{}

// WithReadMemo returns ctx carrying a fresh read memo.
func WithReadMemo(ctx context.Context) context.Context {
	return context.WithValue(ctx, readMemoKey{}, &readMemo{answers: map[string]memoAnswer{}})
}

// Memo answers key from ctx's read memo, asking read the first time; without
// a memo it always asks. Errors are remembered too: the request sees one
// answer to each question.
func Memo[T any](ctx context.Context, key string, read func() (T, error)) (T, error) {
	m, ok := ctx.Value(readMemoKey{}).(*readMemo)
	if !ok {
		return read()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if a, ok := m.answers[key]; ok {
		v, _ := a.value.(T)
		return v, a.err
	}
	v, err := read()
	m.answers[key] = memoAnswer{value: v, err: err}
	return v, err
}

// Remember records v (or err) as ctx's memo answer to key: a batch read
// answers at once the questions the request's later reads will ask.
// Without a memo it does nothing.
func Remember[T any](ctx context.Context, key string, v T, err error) {
	if m, ok := ctx.Value(readMemoKey{}).(*readMemo); ok {
		m.mu.Lock()
		defer m.mu.Unlock()
		m.answers[key] = memoAnswer{value: v, err: err}
	}
}

// Found is a read that may find nothing (OK false), as a read memo keeps
// it: "none" is an answer too, and is not asked again.
type Found[T any] struct {
	Value T
	OK    bool
}

// Memoized reports whether ctx carries a read memo: a batch read is worth
// its statement only when later reads will find its answers.
func Memoized(ctx context.Context) bool {
	_, ok := ctx.Value(readMemoKey{}).(*readMemo)
	return ok
}
