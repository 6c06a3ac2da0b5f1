package signin

// OnKeyWait calls f each time a caller of provider's keys starts waiting
// on a fetch, so a test knows a caller is held without timing it. Set it
// before the first Verify.
func (v *Verifier) OnKeyWait(provider string, f func()) { v.providers[provider].keys.onWait = f }

// SettleKeys waits for the key fetches under way (a stale known key starts
// one behind its caller), so a test reads what they did.
func (v *Verifier) SettleKeys() {
	for _, p := range v.providers {
		p.keys.mu.Lock()
		f := p.keys.flight
		p.keys.mu.Unlock()
		if f != nil {
			<-f.done
		}
	}
}
