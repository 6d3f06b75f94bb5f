package bundlezip_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/bundlezip"
)

// Copy a bundle from one store to another through an archive: every
// record arrives as it was, ids and timestamps included.
func Example() {
	ctx := context.Background()
	open := func() *catalogue.FileStore {
		dir, err := os.MkdirTemp("", "catalogue")
		if err != nil {
			log.Fatal(err)
		}
		s, err := catalogue.OpenFileStore(ctx, dir, catalogue.FileOptions{Logger: quiet})
		if err != nil {
			log.Fatal(err)
		}
		return s
	}
	from, to := open(), open()
	defer os.RemoveAll(from.Dir())
	defer os.RemoveAll(to.Dir())
	defer from.Close()
	defer to.Close()

	id, _ := catalogue.NewID()
	if _, _, err := from.PutBundle(ctx, id, catalogue.BundleSpec{Slug: "math", DisplayName: "Math", IsEnabled: true}); err != nil {
		log.Fatal(err)
	}
	add := catalogue.ToolSpec{DisplayName: "Add", IsEnabled: true, Type: catalogue.TypeGo,
		ArgSchema: json.RawMessage(`{"type":"object"}`), GoImpl: &catalogue.GoImpl{Func: "add"}}
	orig, err := from.PutTool(ctx, catalogue.ToolKey{BundleID: id, Slug: "add", Version: "1"}, add)
	if err != nil {
		log.Fatal(err)
	}

	var archive bytes.Buffer
	if err := bundlezip.Export(ctx, from, id, &archive); err != nil {
		log.Fatal(err)
	}
	b, err := bundlezip.Import(ctx, to, bytes.NewReader(archive.Bytes()), int64(archive.Len()), bundlezip.Options{})
	if err != nil {
		log.Fatal(err)
	}
	copied, err := to.GetTool(ctx, orig.Key())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(b.Slug, b.ID == id)
	fmt.Println(copied.Slug, copied.ID == orig.ID, copied.CreatedAt.Equal(orig.CreatedAt))

	// The same archive again: the bundle exists.
	_, err = bundlezip.Import(ctx, to, bytes.NewReader(archive.Bytes()), int64(archive.Len()), bundlezip.Options{})
	fmt.Println(errors.Is(err, catalogue.ErrConflict))
	// Output:
	// math true
	// add true true
	// true
}

// A hostile archive is refused with the entry at fault and what was
// expected. Read checks an archive without storing it; Import refuses
// the same archives with the same errors.
func ExampleRead_refused() {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("../../etc/cron.d/evil")
	_, _ = w.Write([]byte("* * * * * root sh"))
	_ = zw.Close()

	_, err := bundlezip.Read(context.Background(), bytes.NewReader(buf.Bytes()), int64(buf.Len()), bundlezip.Options{})
	var ve *catalogue.ValidationError
	if errors.As(err, &ve) {
		for _, f := range ve.Fields {
			fmt.Printf("%s: %s\n", f.Field, f.Problem)
		}
	}
	fmt.Println(errors.Is(err, catalogue.ErrInvalid))
	// Output:
	// "../../etc/cron.d/evil": unsafe name: a ".." segment climbs out of the archive's folder
	// true
}
