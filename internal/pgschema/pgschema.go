// Package pgschema holds the one rule for the PostgreSQL schema names
// toolpack's stores accept, for the host configuration (which must not
// depend on a PostgreSQL driver) and the stores alike: a lower-case
// identifier that needs no quoting, fits PostgreSQL's 63 bytes and is not
// one of PostgreSQL's own (a pg_ name, information_schema).
package pgschema

import (
	"regexp"
	"strings"
)

var nameRE = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// Expected says what a schema name must be, for error messages.
const Expected = "a lower-case identifier of at most 63 characters (letters, digits, _) not starting with pg_ and not information_schema (PostgreSQL's own)"

// Valid reports whether name is a schema name the stores accept.
func Valid(name string) bool {
	return nameRE.MatchString(name) && !strings.HasPrefix(name, "pg_") && name != "information_schema"
}
