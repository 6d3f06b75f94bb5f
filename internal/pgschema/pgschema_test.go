package pgschema_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolpack-go/toolpack/internal/pgschema"
)

func ExampleValid() {
	for _, name := range []string{"toolpack", "Tools", "pg_catalog", `x"; DROP`} {
		fmt.Println(name, pgschema.Valid(name))
	}
	// Output:
	// toolpack true
	// Tools false
	// pg_catalog false
	// x"; DROP false
}

// Identifiers that need no quoting and fit 63 bytes, never pg_ names.
func TestValid(t *testing.T) {
	for _, ok := range []string{"toolpack", "tools_prod", "_x", "a", strings.Repeat("a", 63)} {
		assert.True(t, pgschema.Valid(ok), ok)
	}
	for _, bad := range []string{"", "Tools", "x y", "1abc", "a-b", strings.Repeat("a", 64), "pg_catalog", "pg_x", "information_schema", `x"; DROP`, "é"} {
		assert.False(t, pgschema.Valid(bad), bad)
	}
}
