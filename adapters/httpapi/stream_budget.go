package httpapi

import (
	"fmt"
	"syscall"
)

// Every open live stream holds one file descriptor for as long as it is
// open, and so does every other connection, database connection, NATS
// link and upload being spooled. A process past its descriptor limit
// cannot accept at all, so the streams get what the limit leaves once a
// reserve is kept for everything else, whatever TANDEM_STREAMS_MAX says:
// a stream past the budget is 503 with Retry-After, and /readyz says the
// process is full.

// streamReserveMin is the least kept for what is not a stream.
const streamReserveMin = 256

// StreamBudget is how many streams a process whose descriptor limit is
// nofile may hold: at most configured, and at most the limit less a
// quarter of it (at least streamReserveMin) kept for the rest.
func StreamBudget(nofile uint64, configured int) int {
	reserve := max(nofile/4, streamReserveMin)
	if nofile <= reserve {
		return 0
	}
	return int(min(uint64(configured), nofile-reserve))
}

// FileLimit raises the process's soft descriptor limit to its hard one
// (the Go runtime does it too, on Linux; a container may set them apart)
// and returns it.
func FileLimit() (uint64, error) {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 0, fmt.Errorf("reading the file descriptor limit: %w", err)
	}
	if l.Cur < l.Max {
		l.Cur = l.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
			return 0, fmt.Errorf("raising the file descriptor limit: %w", err)
		}
	}
	return l.Cur, nil
}
