package mcpproxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolpack-go/toolpack/internal/mcpmap"
	"github.com/toolpack-go/toolpack/internal/pysig"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// toolNameRE is MCP's tool-name alphabet and length.
var toolNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// ToolName is the name a proxied tool is registered under (before any
// registry prefix): the server name, a dot, and the remote tool name.
func ToolName(server, remote string) string { return server + "." + remote }

// remoteTool is what the proxy keeps of one listed tool.
type remoteTool struct {
	name         string // remote name
	title        string
	description  string
	inputSchema  json.RawMessage
	outputSchema json.RawMessage
	annotations  registry.Annotations
	signature    string
	args         string
	returns      string
	// unwrap is the member of the remote's structuredContent that holds
	// the tool's value ("value" for a toolpack server, "result" for
	// FastMCP), when the remote wraps a value that is not an object and
	// says so; outputSchema is then the value's own schema.
	unwrap string
	// via are the toolpack registries the tool came through
	// (mcpmap.MetaHosts), for registry.Tool.Via.
	via []string
}

// hostsOf reads the registries a listed tool came through
// (mcpmap.MetaHosts); nil when the remote does not say (not a toolpack
// server). Anything but a list of short strings is ignored.
func hostsOf(meta mcp.Meta) []string {
	list, ok := meta[mcpmap.MetaHosts].([]any)
	if !ok || len(list) > registry.MaxCallDepth*4 {
		return nil
	}
	out := make([]string, 0, len(list))
	for _, v := range list {
		s, ok := v.(string)
		if !ok || s == "" || len(s) > 64 {
			return nil
		}
		out = append(out, s)
	}
	return out
}

// convertTool turns a listed tool into a remoteTool; it returns a reason
// when the tool must be skipped. Secrets of the server are redacted from
// the title, the description and the schemas (a remote server may echo a
// credential anywhere). raw is the tool as the proxy captured it in the
// listing, and known tells whether it did: only then can a stated false
// readOnlyHint or idempotentHint be told from an absent one, and the input
// schema be served with its properties in the remote's order (the SDK
// decodes it into a map, which sorts them).
func convertTool(server string, t *mcp.Tool, maxSchema int, red *redactor, raw rawTool, known bool) (remoteTool, string) {
	full := ToolName(server, t.Name)
	if !toolNameRE.MatchString(full) {
		return remoteTool{}, fmt.Sprintf("name %q does not match [A-Za-z0-9_.-]{1,128}", full)
	}
	if red.text(t.Name) != t.Name {
		return remoteTool{}, "the name contains a secret of the server's configuration"
	}
	rt := remoteTool{name: t.Name, title: red.text(t.Title), description: red.text(t.Description)}
	if rt.title == "" && t.Annotations != nil {
		rt.title = red.text(t.Annotations.Title)
	}
	in := t.InputSchema
	if in == nil {
		in = map[string]any{"type": "object", "properties": map[string]any{}}
	}
	js, err := json.Marshal(in)
	if err != nil {
		return remoteTool{}, "input schema does not marshal to JSON"
	}
	if len(js) > maxSchema {
		return remoteTool{}, fmt.Sprintf("input schema of %d bytes exceeds Options.MaxSchemaBytes (%d)", len(js), maxSchema)
	}
	var inMap map[string]any
	if err := json.Unmarshal(js, &inMap); err != nil {
		return remoteTool{}, `input schema is not of "type": "object"`
	}
	if typ, _ := inMap["type"].(string); typ != "object" {
		return remoteTool{}, `input schema is not of "type": "object"`
	}
	if v, changed := red.value(inMap); changed {
		inMap = v.(map[string]any)
		if js, err = json.Marshal(inMap); err != nil {
			return remoteTool{}, "input schema does not marshal to JSON"
		}
	} else if ordered := sameSchema(raw.InputSchema, inMap); ordered != nil && len(ordered) <= maxSchema {
		js = ordered // its properties in the remote's order
	}
	rt.inputSchema = js
	var outMap map[string]any
	if t.OutputSchema != nil {
		js, err := json.Marshal(t.OutputSchema)
		if err != nil {
			return remoteTool{}, "output schema does not marshal to JSON"
		}
		if len(js) > maxSchema {
			return remoteTool{}, fmt.Sprintf("output schema of %d bytes exceeds Options.MaxSchemaBytes (%d)", len(js), maxSchema)
		}
		if v, changed := red.value(t.OutputSchema); changed {
			if js, err = json.Marshal(v); err != nil {
				return remoteTool{}, "output schema does not marshal to JSON"
			}
		}
		rt.outputSchema = js
		_ = json.Unmarshal(js, &outMap)
		if key, inner, innerMap := wrappedSchema(t.Meta, outMap, js); key != "" {
			rt.unwrap, rt.outputSchema, outMap = key, inner, innerMap
		}
	}
	rt.annotations = convertAnnotations(t.Annotations, raw.Annotations, known)
	rt.signature, rt.args = Signature(full, rt.inputSchema)
	rt.returns = "str"
	if outMap != nil {
		rt.returns = pysig.PyType(outMap)
	}
	return rt, ""
}

// convertAnnotations carries the remote hints over. destructiveHint and
// openWorldHint are pointers in the SDK: nil means not stated. readOnlyHint
// and idempotentHint are plain booleans there, so they are read from the
// raw annotations object when the proxy has it (known): a JSON boolean is
// passed as stated, true or false; an absent (or non-boolean) member stays
// nil. Without the raw listing only true can be told apart, and false
// stays nil.
func convertAnnotations(a *mcp.ToolAnnotations, raw json.RawMessage, known bool) registry.Annotations {
	var out registry.Annotations
	if a == nil {
		return out
	}
	if a.DestructiveHint != nil {
		out.Destructive = new(*a.DestructiveHint)
	}
	if a.OpenWorldHint != nil {
		out.OpenWorld = new(*a.OpenWorldHint)
	}
	if !known {
		if a.ReadOnlyHint {
			out.ReadOnly = new(true)
		}
		if a.IdempotentHint {
			out.Idempotent = new(true)
		}
		return out
	}
	var members map[string]json.RawMessage
	_ = json.Unmarshal(raw, &members)
	stated := func(name string) *bool {
		var b bool
		if m, ok := members[name]; ok && json.Unmarshal(m, &b) == nil && !bytes.Equal(bytes.TrimSpace(m), []byte("null")) {
			return new(b)
		}
		return nil
	}
	out.ReadOnly = stated("readOnlyHint")
	out.Idempotent = stated("idempotentHint")
	return out
}

// wrappedSchema recognises an output schema that wraps a value that is
// not an object in an object of one member, as structuredContent requires,
// when the remote says so: a toolpack server with the tool's _meta
// (mcpmap.MetaWrapped, member "value"), FastMCP with the schema's
// "x-fastmcp-wrap-result" (member "result"). It returns the member and the
// member's own schema (as JSON and decoded); key is "" when the schema is
// not such a wrapper, or when it holds a "$ref" (which would point
// elsewhere once the member's schema stands alone).
func wrappedSchema(meta mcp.Meta, outMap map[string]any, js json.RawMessage) (key string, inner json.RawMessage, innerMap map[string]any) {
	switch {
	case meta[mcpmap.MetaWrapped] == true:
		key = mcpmap.WrapKey
	case outMap["x-fastmcp-wrap-result"] == true:
		key = "result"
	default:
		return "", nil, nil
	}
	props, _ := outMap["properties"].(map[string]any)
	member, ok := props[key]
	if typ, _ := outMap["type"].(string); !ok || len(props) != 1 || typ != "object" || bytes.Contains(js, []byte(`"$ref"`)) {
		return "", nil, nil
	}
	switch m := member.(type) {
	case map[string]any:
		innerMap = m
	case bool: // a boolean schema: true accepts anything, false nothing
		innerMap = map[string]any{}
		if !m {
			innerMap["not"] = map[string]any{}
		}
	default:
		return "", nil, nil
	}
	inner, err := json.Marshal(innerMap)
	if err != nil {
		return "", nil, nil
	}
	return key, inner, innerMap
}

// unwrapValue takes a tool's value out of the wrapper its remote put it in
// for structuredContent: when the tool's schema was unwrapped (rt.unwrap),
// or, for a tool without an output schema, when the result's _meta says
// it is wrapped (mcpmap.MetaWrapped). Anything else is returned as it is.
func unwrapValue(r result.Result[any], rt remoteTool, meta mcp.Meta) result.Result[any] {
	key := rt.unwrap
	if key == "" && rt.outputSchema == nil && meta[mcpmap.MetaWrapped] == true {
		key = mcpmap.WrapKey
	}
	if key == "" || !r.Success {
		return r
	}
	if m, ok := r.Value.(map[string]any); ok && len(m) == 1 {
		if v, ok := m[key]; ok {
			r.Value = v
		}
	}
	return r
}

// rawTool is what the proxy reads of a tool in the raw tools/list
// results: the members the SDK's decoding loses.
type rawTool struct {
	// Annotations is the annotations object; nil for a tool without one.
	Annotations json.RawMessage `json:"annotations"`
	// InputSchema is the input schema as the remote wrote it.
	InputSchema json.RawMessage `json:"inputSchema"`
}

// rawTools reads the raw tools/list results captured during a listing:
// each tool by name.
func rawTools(pages []json.RawMessage) map[string]rawTool {
	out := map[string]rawTool{}
	for _, p := range pages {
		var page struct {
			Tools []struct {
				Name string `json:"name"`
				rawTool
			} `json:"tools"`
		}
		if json.Unmarshal(p, &page) != nil {
			continue
		}
		for _, t := range page.Tools {
			out[t.Name] = t.rawTool
		}
	}
	return out
}

// sameSchema returns raw without insignificant white space when it is
// the JSON object decoded is, else nil.
func sameSchema(raw json.RawMessage, decoded map[string]any) json.RawMessage {
	var m map[string]any
	if len(raw) == 0 || json.Unmarshal(raw, &m) != nil || !reflect.DeepEqual(m, decoded) {
		return nil
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return nil
	}
	return buf.Bytes()
}

// Signature derives a Python-style call signature and the argument lines
// from a JSON Schema of type object (seed 001, "Proxy tool signature from
// schema" and "Proxy tool arguments from schema"). Required parameters come
// first, without defaults, then optional ones, each with its default or
// '...'; both groups keep the order of the schema's "properties" (a name
// that "required" lists without a property follows the required ones). The
// argument lines are "name: description", one per parameter in the same
// order, joined by newlines; a parameter without a description reads
// "name: (no description)". A schema that is not a JSON object gives
// "name()" and no lines.
func Signature(name string, schema json.RawMessage) (signature, args string) {
	ps := pysig.Params(schema)
	lines := make([]string, 0, len(ps))
	for _, p := range pysig.CallOrder(ps) {
		lines = append(lines, pysig.ArgLine(p))
	}
	return pysig.Signature(name, ps), strings.Join(lines, "\n")
}

// mapResult turns a remote CallToolResult into a Result: isError → an
// upstream_failure with the text; structuredContent → the value; otherwise
// the text content joined by newlines. raw is the captured raw result (nil
// when missing): structured content is read from it with json.Number
// numbers. Secrets of the server are redacted from the text and the value
// of a success by red (header and env values), from the text and error
// data of a failure by failRed (Config.Secrets too: a failure text is an
// error text, which may echo a token in the URL's path or a command
// argument); sizes are checked before redaction, error texts are cut
// after it.
func mapResult(res *mcp.CallToolResult, raw json.RawMessage, maxBytes int, red, failRed *redactor) result.Result[any] {
	text := joinContent(res.Content)
	sv, size, err := structuredContent(res, raw)
	if err != nil {
		return result.Failure[any]("the remote structured content does not marshal to JSON", result.UpstreamFailure)
	}
	if res.IsError {
		if text == "" {
			text = "the remote tool reported an error without text"
		}
		f := result.Failure[any](cut(failRed.text(text), maxBytes), remoteErrorType(res.Meta))
		if sv != nil && size <= maxBytes {
			v, _ := failRed.value(sv)
			f = f.WithErrorData(v)
		}
		return f
	}
	if sv != nil {
		if size > maxBytes {
			return result.Failuref[any](result.UpstreamFailure,
				"the remote structured content of %d bytes exceeds Options.MaxResultBytes (%d)", size, maxBytes)
		}
		v, _ := red.value(sv)
		return result.Ok[any](v)
	}
	if len(text) > maxBytes {
		return result.Failuref[any](result.UpstreamFailure,
			"the remote text result of %d bytes exceeds Options.MaxResultBytes (%d)", len(text), maxBytes)
	}
	return result.Ok[any](red.text(text))
}

// remoteErrorType is the error type of a remote failure: the one a
// toolpack server states in the result's _meta (MetaErrorType, as
// adapters/mcpserver writes it), when it is one of the domain failures
// that say what to do about the call — not_found, validation_error,
// permission_denied, conflict, rate_limited — so that a proxied tool fails
// as the tool itself does; upstream_failure otherwise. Any server can
// write the key, so types that speak for this host (cancelled, timeout,
// unavailable, internal_error, security_error: a REST status, an
// instruction, a statistic of its own) are not taken from a remote.
func remoteErrorType(meta map[string]any) result.ErrorType {
	if s, ok := meta[mcpmap.MetaErrorType].(string); ok {
		switch t := result.ErrorType(s); t {
		case result.NotFound, result.ValidationError, result.PermissionDenied, result.Conflict, result.RateLimited:
			return t
		}
	}
	return result.UpstreamFailure
}

// structuredContent returns the structured content of a result and its JSON
// size: decoded from raw with json.Number numbers when raw holds it, the
// SDK's value (float64 numbers) otherwise; nil when there is none.
func structuredContent(res *mcp.CallToolResult, raw json.RawMessage) (any, int, error) {
	if raw != nil {
		var wire struct {
			StructuredContent json.RawMessage `json:"structuredContent"`
		}
		if json.Unmarshal(raw, &wire) == nil {
			sc := bytes.TrimSpace(wire.StructuredContent)
			if len(sc) > 0 && !bytes.Equal(sc, []byte("null")) {
				if v, err := decodeNumbers(sc); err == nil {
					return v, len(sc), nil
				}
			}
		}
	}
	if res.StructuredContent == nil {
		return nil, 0, nil
	}
	js, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return nil, 0, err
	}
	return res.StructuredContent, len(js), nil
}

// joinContent joins the content items: text as is, embedded text resources
// by their text, other kinds as a bracketed placeholder.
func joinContent(cs []mcp.Content) string {
	parts := make([]string, 0, len(cs))
	for _, c := range cs {
		switch x := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, x.Text)
		case *mcp.ImageContent:
			parts = append(parts, fmt.Sprintf("[image: %s, %d bytes]", x.MIMEType, len(x.Data)))
		case *mcp.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio: %s, %d bytes]", x.MIMEType, len(x.Data)))
		case *mcp.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource: %s]", x.URI))
		case *mcp.EmbeddedResource:
			switch {
			case x.Resource == nil:
				parts = append(parts, "[resource]")
			case x.Resource.Text != "":
				parts = append(parts, x.Resource.Text)
			default:
				parts = append(parts, fmt.Sprintf("[resource: %s, %s, %d bytes]", x.Resource.URI, x.Resource.MIMEType, len(x.Resource.Blob)))
			}
		case nil:
		default:
			parts = append(parts, fmt.Sprintf("[%T content]", c))
		}
	}
	return strings.Join(parts, "\n")
}
