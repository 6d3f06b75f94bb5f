package pgstore_test

import (
	"context"
	"fmt"

	"github.com/toolpack-go/toolpack/registry/catalogue/pgstore"
)

// A host opens the catalogue with the DSN from its configuration (written
// as ${ENV} there, never in the file); Open applies the migrations and
// serves the catalogue.Store interface. A DSN that does not parse is
// refused without being quoted, since it may hold a password.
func ExampleOpen() {
	ctx := context.Background()
	_, err := pgstore.Open(ctx, "postgres://catalogue:pa55@[db", pgstore.Options{Schema: "toolpack"})
	fmt.Println(err)
	// Output:
	// pgstore: the DSN does not parse (expected postgres://user:password@host:port/db or key=value pairs)
}
