package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/toolpack-go/toolpack/registry"
)

// ToolSummary is one entry of GET /tools.
type ToolSummary struct {
	// Name is the tool's final name.
	Name string `json:"name"`
	// Title is the short human-readable title ("" when the tool has none).
	Title string `json:"title"`
	// Description is the full description, argument Markdown included.
	Description string `json:"description"`
	// Pack is the pack the tool belongs to ("" when none).
	Pack string `json:"pack"`
	// Source is "local" or "proxy:{server}".
	Source string `json:"source"`
}

// ToolList is the body of GET /tools.
type ToolList struct {
	// Tools are the matching tools, sorted by name; never null.
	Tools []ToolSummary `json:"tools"`
}

// AnnotationsJSON are a tool's MCP hints; an absent field was not stated by
// the tool.
type AnnotationsJSON struct {
	// ReadOnly: the tool does not change its environment.
	ReadOnly *bool `json:"read_only,omitempty"`
	// Destructive: the tool may destroy data.
	Destructive *bool `json:"destructive,omitempty"`
	// Idempotent: repeating a call has no further effect.
	Idempotent *bool `json:"idempotent,omitempty"`
	// OpenWorld: the tool talks to the world outside the host.
	OpenWorld *bool `json:"open_world,omitempty"`
}

// ToolDetail is the body of GET /tools/{name}.
type ToolDetail struct {
	// ToolSummary holds name, title, description, pack and source.
	ToolSummary
	// InputSchema is the JSON Schema of the arguments (the invoke body).
	InputSchema json.RawMessage `json:"input_schema"`
	// OutputSchema is the JSON Schema of a successful value; absent when
	// the tool declares none.
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	// Annotations are the MCP hints.
	Annotations AnnotationsJSON `json:"annotations"`
	// Signature is the tool's call signature (introspection text); absent
	// when empty.
	Signature string `json:"signature,omitempty"`
	// Args is the argument Markdown; absent when empty.
	Args string `json:"args,omitempty"`
	// Returns describes the result type; absent when empty.
	Returns string `json:"returns,omitempty"`
	// Example is an example call; absent when empty.
	Example string `json:"example,omitempty"`
}

func summary(t *registry.Tool) ToolSummary {
	src := t.Source
	if src == "" {
		src = registry.SourceLocal // the registry's meaning of ""
	}
	return ToolSummary{Name: t.Name, Title: t.Title, Description: t.Description, Pack: t.Pack, Source: src}
}

// inputSchema returns t's input schema; a tool without one accepts any
// arguments, which is the schema {}.
func inputSchema(t *registry.Tool) json.RawMessage {
	if len(t.InputSchema) == 0 {
		return json.RawMessage(`{}`)
	}
	return t.InputSchema
}

// listFilter is the parsed query of GET /tools.
type listFilter struct {
	pack    string
	hasPack bool
	q       string // lower-cased
}

// parseListQuery accepts only pack and q, each at most once, bounded and
// valid UTF-8; anything else is an error message naming the parameter.
func parseListQuery(raw string) (listFilter, string) {
	var f listFilter
	if raw == "" {
		return f, ""
	}
	vals, err := url.ParseQuery(raw)
	if err != nil {
		return f, fmt.Sprintf("the query string cannot be parsed (%v); expected pack=…&q=…", err)
	}
	for k, v := range vals {
		switch k {
		case "pack", "q":
		default:
			return f, fmt.Sprintf("unknown query parameter %s; expected pack or q", quoteTrunc(k))
		}
		if len(v) != 1 {
			return f, fmt.Sprintf("query parameter %s is given %d times; expected once", k, len(v))
		}
		limit := MaxQueryLen
		if k == "pack" {
			limit = MaxPackLen
		}
		if len(v[0]) > limit {
			return f, fmt.Sprintf("query parameter %s is %d bytes long; expected at most %d", k, len(v[0]), limit)
		}
		if !utf8.ValidString(v[0]) {
			return f, fmt.Sprintf("query parameter %s is not valid UTF-8", k)
		}
	}
	if v, ok := vals["pack"]; ok {
		f.pack, f.hasPack = v[0], true
	}
	if v, ok := vals["q"]; ok {
		f.q = strings.ToLower(v[0])
	}
	return f, ""
}

func (f listFilter) match(t *registry.Tool) bool {
	if f.hasPack && t.Pack != f.pack {
		return false
	}
	if f.q == "" {
		return true
	}
	return strings.Contains(strings.ToLower(t.Name), f.q) ||
		strings.Contains(strings.ToLower(t.Title), f.q) ||
		strings.Contains(strings.ToLower(t.Description), f.q)
}

// list serves GET /tools.
func (h *Handler) list(w http.ResponseWriter, r *http.Request) {
	f, msg := parseListQuery(r.URL.RawQuery)
	if msg != "" {
		writeError(w, http.StatusBadRequest, ErrTypeInvalidParameter, msg, nil)
		return
	}
	out := ToolList{Tools: []ToolSummary{}}
	for _, t := range h.reg.List() {
		if f.match(t) {
			out.Tools = append(out.Tools, summary(t))
		}
	}
	h.writeValue(w, r, "", out)
}

// describe serves GET /tools/{name}.
func (h *Handler) describe(w http.ResponseWriter, r *http.Request) {
	name, ok := pathName(w, r)
	if !ok || !noQuery(w, r) {
		return
	}
	t, ok := h.reg.Lookup(name)
	if !ok {
		writeError(w, http.StatusNotFound, ErrTypeUnknownTool,
			fmt.Sprintf("no tool named %q; GET /tools lists the tools", name), nil)
		return
	}
	d := ToolDetail{
		ToolSummary:  summary(t),
		InputSchema:  inputSchema(t),
		OutputSchema: t.OutputSchema,
		Annotations: AnnotationsJSON{
			ReadOnly: t.Annotations.ReadOnly, Destructive: t.Annotations.Destructive,
			Idempotent: t.Annotations.Idempotent, OpenWorld: t.Annotations.OpenWorld,
		},
		Signature: t.Usage.Signature, Args: t.Usage.Args, Returns: t.Usage.Returns, Example: t.Usage.Example,
	}
	h.writeValue(w, r, name, d)
}

// writeValue writes v as a 200 JSON body; a value that cannot be marshalled
// (such as a tool schema that is not JSON) is a logged 500.
func (h *Handler) writeValue(w http.ResponseWriter, r *http.Request, name string, v any) {
	b, err := marshal(v)
	if err != nil {
		h.internal(w, r, name, fmt.Errorf("marshal response: %w", err))
		return
	}
	writeJSON(w, http.StatusOK, b, true)
}
