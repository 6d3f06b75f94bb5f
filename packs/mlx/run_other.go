//go:build !linux

package mlx

import (
	"errors"

	"github.com/toolpack-go/toolpack/registry"
)

// New is not available on this system: the pack manages process groups
// and reads /proc, which only Linux has here.
func New(Config) (*registry.Pack, error) {
	return nil, errors.New("mlx: the mlx pack runs on Linux only")
}
