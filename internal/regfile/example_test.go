package regfile_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/toolpack-go/toolpack/internal/regfile"
)

// ReadFile reads a file that must be regular, capped; a directory (or a
// FIFO, a socket, a device) where the file should be is refused at once,
// naming it, instead of being read or waited on.
func ExampleReadFile() {
	dir, _ := os.MkdirTemp("", "regfile")
	defer os.RemoveAll(dir)
	_ = os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("a: 1\n"), 0o600)
	_ = os.Mkdir(filepath.Join(dir, "notes.yaml"), 0o700)

	data, err := regfile.ReadFile(filepath.Join(dir, "config.yaml"), 1<<20)
	fmt.Printf("%q %v\n", data, err)
	_, err = regfile.ReadFile(filepath.Join(dir, "notes.yaml"), 1<<20)
	fmt.Println(err, errors.Is(err, regfile.ErrNotRegular))
	// Output:
	// "a: 1\n" <nil>
	// notes.yaml is not a regular file (a directory) true
}
