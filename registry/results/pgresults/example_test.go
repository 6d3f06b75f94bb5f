package pgresults_test

import (
	"context"
	"fmt"

	"github.com/toolpack-go/toolpack/registry/results/pgresults"
)

// A host opens the backend with the DSN of its output: section (written
// as ${ENV}) and gives it to results.Open as Options.Backend. A DSN that
// does not parse is refused without being quoted: it may hold a password.
func ExampleOpen() {
	_, err := pgresults.Open(context.Background(), "postgres://out:s3cret@[db", pgresults.Options{})
	fmt.Println(err)
	// Output:
	// pgresults: the DSN does not parse (expected postgres://user:password@host:port/db or key=value pairs)
}
