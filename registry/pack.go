package registry

import (
	"context"
	"errors"
	"fmt"

	"github.com/toolpack-go/toolpack/result"
)

// Pack is a named group of tools. A pack is usually built by a constructor
// of its own package, New(cfg Config) (*registry.Pack, error), with
// AddFunc:
//
//	p := &registry.Pack{Name: "notes", Description: "Notes kept in memory."}
//	err := errors.Join(
//		registry.AddFunc(p, "add_note", s.AddNote, registry.ToolOptions{Doc: "…"}),
//		registry.AddFunc(p, "list_notes", s.ListNotes, registry.ToolOptions{Doc: "…"}),
//	)
//
// and registered with Registry.AddPack.
type Pack struct {
	// Name identifies the pack; it follows the tool-name rules.
	Name string
	// Description says what the pack is for.
	Description string
	// Tools are the pack's tools (undecorated names before registration).
	Tools []*Tool
}

// Add appends tools to the pack. A nil tool, a tool without a name or a
// name already in the pack is an error (all are reported, joined with
// errors.Join), and then nothing is appended. Names are checked in full by
// Registry.AddPack.
func (p *Pack) Add(tools ...*Tool) error {
	seen := make(map[string]bool, len(p.Tools)+len(tools))
	for _, t := range p.Tools {
		if t != nil {
			seen[t.Name] = true
		}
	}
	var errs []error
	for i, t := range tools {
		switch {
		case t == nil:
			errs = append(errs, fmt.Errorf("%w: pack %q: tool #%d is nil", ErrInvalidTool, p.Name, i))
		case t.Name == "":
			errs = append(errs, fmt.Errorf("%w: pack %q: tool #%d has no name", ErrInvalidName, p.Name, i))
		case seen[t.Name]:
			errs = append(errs, fmt.Errorf("%w: pack %q: tool %q added twice", ErrNameClash, p.Name, t.Name))
		default:
			seen[t.Name] = true
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	p.Tools = append(p.Tools, tools...)
	return nil
}

// Adder is what AddFunc adds to: a *Registry or a *Pack.
type Adder interface {
	Add(tools ...*Tool) error
}

// AddFunc builds a tool from fn with Func and adds it to a registry or a
// pack. It is the short way to define a tool:
//
//	err := registry.AddFunc(reg, "greet", greet, registry.ToolOptions{Doc: "Greets someone."})
func AddFunc[A, R any](to Adder, name string, fn func(ctx context.Context, a A) (result.Result[R], error), o ToolOptions) error {
	if to == nil {
		return fmt.Errorf("%w: tool %q: AddFunc needs a *Registry or *Pack, got nil", ErrInvalidTool, name)
	}
	t, err := Func(name, fn, o)
	if err != nil {
		return err
	}
	return to.Add(t)
}
