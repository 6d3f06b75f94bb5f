//go:build race

package schematype

// raceEnabled: the race detector makes sync.Pool drop entries, so pooled
// scanners are reallocated and allocation counts do not hold.
const raceEnabled = true
