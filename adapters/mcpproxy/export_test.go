package mcpproxy

import "time"

// Timeouts returns the call and connect timeouts p runs with, so that the
// tests can check that none of them waits for the long defaults.
func Timeouts(p *Proxy) (call, connect time.Duration) {
	return p.opts.CallTimeout, p.opts.ConnectTimeout
}
