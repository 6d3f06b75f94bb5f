package othost

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/toolpack-go/toolpack/registry/hostconfig"
)

// A store a reload replaced answers for its handles until they expire,
// unless its successor reads the same outputs (the same directory, or the
// same database and schema), when it only lets the calls under way end.
// A move between files and PostgreSQL keeps output.dir, which the
// PostgreSQL store does not read: the old handles got "not found" a
// minute after the move instead of at their TTL.
func TestRetireAfter_OnlyTheSameBackendCutsTheGraceShort(t *testing.T) {
	const ttl = time.Hour
	files := func(dir string) outputSettings { return outputSettings{dir: dir, ttl: ttl} }
	pg := func(dir, dsn, schema string) outputSettings {
		return outputSettings{dir: dir, ttl: ttl, pg: hostconfig.Postgres{DSN: dsn, Schema: schema}}
	}
	for _, tc := range []struct {
		name      string
		old, next outputSettings
		want      time.Duration
	}{
		{"files, same directory", files("r"), files("r"), sameDirGrace},
		{"files, another directory", files("r"), files("s"), ttl},
		{"files to PostgreSQL, same directory", files("r"), pg("r", "postgres://a/db", ""), ttl},
		{"PostgreSQL to files, same directory", pg("r", "postgres://a/db", ""), files("r"), ttl},
		{"another database", pg("r", "postgres://a/db", ""), pg("r", "postgres://b/db", ""), ttl},
		{"another schema", pg("r", "postgres://a/db", "x"), pg("r", "postgres://a/db", "y"), ttl},
		{"same database and schema, another directory", pg("r", "postgres://a/db", "x"), pg("s", "postgres://a/db", "x"), sameDirGrace},
		{"a TTL under the grace", outputSettings{dir: "r", ttl: time.Second}, files("r"), time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, retireAfter(tc.old, tc.next))
		})
	}
}
