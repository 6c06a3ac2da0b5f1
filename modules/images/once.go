package images

import "sync"

// flights runs one function per key at a time: callers that arrive while it
// runs wait for it and share its error (concurrent first requests for one
// thumbnail render it once).
type flights struct {
	mu      sync.Mutex
	running map[string]*flight
}

type flight struct {
	done chan struct{}
	err  error
}

func (f *flights) do(key string, fn func() error) error {
	f.mu.Lock()
	if c, ok := f.running[key]; ok {
		f.mu.Unlock()
		<-c.done
		return c.err
	}
	if f.running == nil {
		f.running = map[string]*flight{}
	}
	c := &flight{done: make(chan struct{})}
	f.running[key] = c
	f.mu.Unlock()

	defer func() {
		f.mu.Lock()
		delete(f.running, key)
		f.mu.Unlock()
		close(c.done)
	}()
	c.err = fn()
	return c.err
}
