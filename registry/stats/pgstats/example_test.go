package pgstats_test

import (
	"context"
	"fmt"

	"github.com/toolpack-go/toolpack/registry/stats/pgstats"
)

// A host opens the sink with the DSN of its stats: section (written as
// ${ENV}) and gives it to stats.New as Options.Sink. A DSN that does not
// parse is refused without being quoted: it may hold a password.
func ExampleOpen() {
	_, err := pgstats.Open(context.Background(), "postgres://stats:s3cret@[db", pgstats.Options{})
	fmt.Println(err)
	// Output:
	// pgstats: the DSN does not parse (expected postgres://user:password@host:port/db or key=value pairs)
}
