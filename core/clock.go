package core

import "time"

// Clock is the only source of "now" inside modules, so tests can move time.
type Clock interface{ Now() time.Time }

// SystemClock reads the wall clock.
type SystemClock struct{}

func (SystemClock) Now() time.Time { return time.Now() }

// Millis is t as integer milliseconds since the Unix epoch, the spec's timestamp form.
func Millis(t time.Time) int64 { return t.UnixMilli() }

// MaxMillis is the last millisecond of year 9999: the latest time a
// request may name in milliseconds.
const MaxMillis = 253402300799999

// FromMillis is the inverse of Millis, in UTC.
func FromMillis(ms int64) time.Time { return time.UnixMilli(ms).UTC() }
