// Package valuesize counts the bytes of a tool's output value as
// encoding/json would write it, without encoding it where it can: the
// statistics and telemetry middleware record bytes out on every call, and
// encoding a small struct only to count it would cost most of what they
// add to a call.
package valuesize
