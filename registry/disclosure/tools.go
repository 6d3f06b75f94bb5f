package disclosure

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// SearchArgs are search_tools' arguments.
type SearchArgs struct {
	Query string `json:"query" validate:"required,max=200" description:"Words for what the tool should do, or part of its name; typos are forgiven." example:"weather forecast"`
	Limit int    `json:"limit,omitempty" validate:"omitempty,gte=1,lte=50" default:"10" description:"Most tools to return (1 to 50)."`
}

// Found is one tool search_tools found.
type Found struct {
	// Name is the tool's name, as describe_tool and call_tool take it.
	Name string `json:"name"`
	// Description is the first paragraph of its description, cut short.
	Description string `json:"description"`
}

// SearchResult is search_tools' answer.
type SearchResult struct {
	// Tools are the best matches, best first.
	Tools []Found `json:"tools"`
	// Total is how many tools matched in all.
	Total int `json:"total"`
}

func (d *Disclosure) searchTools(_ context.Context, a SearchArgs) (result.Result[SearchResult], error) {
	limit := a.Limit
	if limit == 0 {
		limit = DefaultLimit
	}
	ix, tools := d.index()
	top, total := ix.RankTop(a.Query, limit)
	out := SearchResult{Tools: make([]Found, len(top)), Total: total}
	for i, m := range top {
		out.Tools[i] = Found{Name: m.Item.Name, Description: summary(tools[m.Index])}
	}
	r := result.Ok(out)
	if total == 0 {
		r = r.WithInstruction("No tool matched. Try other words: what the tool acts on (file, weather, issue) or what it does (search, create, convert).")
	}
	return r, nil
}

// DescribeArgs are describe_tool's arguments.
type DescribeArgs struct {
	Name string `json:"name" validate:"required,max=128" description:"The tool's name, as search_tools gave it." example:"weather.forecast"`
}

// Schema is a JSON Schema passed on as it is.
type Schema json.RawMessage

// MarshalJSON writes the schema as it is (null when empty).
func (s Schema) MarshalJSON() ([]byte, error) {
	if len(bytes.TrimSpace(s)) == 0 {
		return []byte("null"), nil
	}
	return s, nil
}

// JSONSchema states the JSON form of a Schema: an object, or null.
func (Schema) JSONSchema() json.RawMessage {
	return json.RawMessage(`{"type":["object","null"]}`)
}

// Hints are a tool's annotations as describe_tool shows them; an absent
// hint is not known.
type Hints struct {
	// ReadOnly: the tool does not change its environment.
	ReadOnly *bool `json:"readOnlyHint,omitempty"`
	// Destructive: the tool may destroy or overwrite data.
	Destructive *bool `json:"destructiveHint,omitempty"`
	// Idempotent: calling it again with the same arguments changes
	// nothing more.
	Idempotent *bool `json:"idempotentHint,omitempty"`
	// OpenWorld: the tool reaches entities outside the host (the web,
	// other services).
	OpenWorld *bool `json:"openWorldHint,omitempty"`
}

// Description is describe_tool's answer.
type Description struct {
	// Name is the tool's name, as call_tool takes it.
	Name string `json:"name"`
	// Title is its human-readable title, when it has one.
	Title string `json:"title,omitempty"`
	// Description is its description, as tools/list would give it.
	Description string `json:"description"`
	// InputSchema is the JSON Schema of its arguments.
	InputSchema Schema `json:"inputSchema"`
	// OutputSchema is the JSON Schema of its value, when it declares one.
	OutputSchema Schema `json:"outputSchema,omitempty"`
	// Annotations are its behaviour hints.
	Annotations Hints `json:"annotations"`
}

func (d *Disclosure) describeTool(ctx context.Context, a DescribeArgs) (result.Result[Description], error) {
	t, on, ok := d.full.ResolveContext(ctx, a.Name)
	if !ok || !on {
		if res, ok := d.full.Unavailable(a.Name); ok {
			// Refused as a call of it is: disabled, or an alias whose
			// target is not served.
			return result.As[Description](res)
		}
		return notFound[Description](d, a.Name), nil
	}
	an := t.Annotations
	return result.Ok(Description{
		Name: t.Name, Title: t.Title, Description: t.Description,
		InputSchema: Schema(t.InputSchema), OutputSchema: Schema(t.OutputSchema),
		Annotations: Hints{ReadOnly: an.ReadOnly, Destructive: an.Destructive, Idempotent: an.Idempotent, OpenWorld: an.OpenWorld},
	}), nil
}

// notFound is the failure for a name that is neither a tool nor an alias
// of the full registry, with the closest names as suggestions.
func notFound[T any](d *Disclosure, name string) result.Result[T] {
	msg := fmt.Sprintf("there is no tool named %q", name)
	ix, _ := d.index()
	if top, _ := ix.RankTop(name, 3); len(top) > 0 {
		names := make([]string, len(top))
		for i, m := range top {
			names[i] = m.Item.Name
		}
		msg += "; did you mean " + strings.Join(names, ", ") + "?"
	}
	return result.Failure[T](msg, result.NotFound).WithInstruction("Use search_tools to find a tool's exact name.")
}

// CallArgs are call_tool's arguments.
type CallArgs struct {
	Name      string `json:"name" validate:"required,max=128" description:"The tool's name, as search_tools gave it." example:"weather.forecast"`
	Arguments Object `json:"arguments,omitempty" description:"The tool's arguments, as its input schema (from describe_tool) says; omit for none."`
}

// Object is a JSON object (or null) passed on as it is.
type Object json.RawMessage

// UnmarshalJSON keeps a JSON object or null; anything else is an error.
func (o *Object) UnmarshalJSON(b []byte) error {
	t := bytes.TrimSpace(b)
	if len(t) == 0 || (t[0] != '{' && !bytes.Equal(t, []byte("null"))) {
		return errors.New("expected a JSON object of the tool's arguments")
	}
	*o = append((*o)[:0], t...)
	return nil
}

// JSONSchema states the JSON form of an Object.
func (Object) JSONSchema() json.RawMessage { return json.RawMessage(`{"type":["object","null"]}`) }

func (d *Disclosure) callTool(ctx context.Context, a CallArgs) (result.Result[any], error) {
	if _, _, ok := d.full.ResolveContext(ctx, a.Name); !ok && !d.full.IsAlias(a.Name) {
		return notFound[any](d, a.Name), nil
	}
	// A disabled tool, or an alias whose target is not served, is
	// answered by the full registry as a call of it is anywhere else.
	raw := json.RawMessage(a.Arguments)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = json.RawMessage("{}")
	}
	// The agent's own call, passed on: not nested in call_tool's, so the
	// full registry's middleware treats it as a direct call (a large
	// output is stored and its handle returned).
	return d.full.Invoke(registry.Detach(ctx), a.Name, raw)
}
