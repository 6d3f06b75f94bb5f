package registry

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/toolpack-go/toolpack/result"
)

// Collection gathers declared tools until they are collected, as seed 004's
// ToolArguments.declare / get_declared_tools do. The zero value is an empty
// collection ready to use; it is safe for concurrent use and must not be
// copied after first use.
type Collection struct {
	mu    sync.Mutex
	tools map[string]*Tool
	errs  []error
}

// defaultCollection is the package-level collection used by Declare and
// Collect; it is the one piece of package state seed 004 asks for.
var defaultCollection Collection

// Declare builds a Tool from fn (as Func does), adds it to the default
// collection under name and returns fn unchanged, not wrapped, so that it can
// be called normally:
//
//	var Echo = registry.Declare("echo", echo, registry.ToolOptions{Doc: "Echoes text."})
//
// A bad declaration (invalid name, unsupported tag, a name already declared
// in the collection) does not stop the program: it is recorded and returned,
// joined with the others, by the next Collect.
func Declare[A, R any](name string, fn func(ctx context.Context, a A) (result.Result[R], error), o ToolOptions) func(ctx context.Context, a A) (result.Result[R], error) {
	return DeclareIn(&defaultCollection, name, fn, o)
}

// DeclareIn is Declare for the collection c, so that a pack can keep its own.
// A nil c means the default collection, as a nil Handler means
// DefaultServeMux in net/http.
func DeclareIn[A, R any](c *Collection, name string, fn func(ctx context.Context, a A) (result.Result[R], error), o ToolOptions) func(ctx context.Context, a A) (result.Result[R], error) {
	if c == nil {
		c = &defaultCollection
	}
	var (
		t   *Tool
		err error
	)
	if fn == nil {
		err = errNilFunc
	} else {
		t, err = Func(name, fn, o)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case err != nil:
		c.errs = append(c.errs, fmt.Errorf("registry: declare %q: %w", name, err))
	case c.tools[name] != nil:
		c.errs = append(c.errs, fmt.Errorf("registry: declare %q: %w: declared twice", name, ErrNameClash))
	default:
		if c.tools == nil {
			c.tools = map[string]*Tool{}
		}
		c.tools[name] = t
	}
	return fn
}

// Collect returns every tool declared with Declare since the last Collect,
// keyed by undecorated name, and clears the default collection, so a second
// Collect returns an empty map: tools are never registered twice. The error
// joins every bad declaration (nil when there was none); the good ones are
// returned either way.
func Collect() (map[string]*Tool, error) { return defaultCollection.Collect() }

// Collect returns every tool declared in c since the last Collect and clears
// c; see the package-level Collect.
func (c *Collection) Collect() (map[string]*Tool, error) {
	c.mu.Lock()
	tools, errs := c.tools, c.errs
	c.tools, c.errs = nil, nil
	c.mu.Unlock()
	if tools == nil {
		tools = map[string]*Tool{}
	}
	return tools, errors.Join(errs...)
}

// Pack collects c (clearing it) into a Pack with the given name and
// description, its tools sorted by name. Any bad declaration is an error and
// no pack is returned.
func (c *Collection) Pack(name, description string) (*Pack, error) {
	tools, err := c.Collect()
	if err != nil {
		return nil, fmt.Errorf("registry: pack %q: %w", name, err)
	}
	if err := checkName(name); err != nil {
		return nil, fmt.Errorf("registry: pack %q: %w", name, err)
	}
	p := &Pack{Name: name, Description: description, Tools: make([]*Tool, 0, len(tools))}
	for _, t := range tools {
		p.Tools = append(p.Tools, t)
	}
	sort.Slice(p.Tools, func(i, j int) bool { return p.Tools[i].Name < p.Tools[j].Name })
	return p, nil
}
