package testwait_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolpack-go/toolpack/internal/testwait"
)

// Returns waits for a call that returns and runs it exactly once.
func TestReturns_RunsTheCallOnce(t *testing.T) {
	n := 0
	testwait.Returns(t, "the call", func() { n++ })
	assert.Equal(t, 1, n)
}
