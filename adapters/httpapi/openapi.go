package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/toolpack-go/toolpack/internal/jsonptr"
	"github.com/toolpack-go/toolpack/registry"
)

// OpenAPIVersion is the version of the OpenAPI specification the generated
// document follows.
const OpenAPIVersion = "3.1.0"

// Operation ids of the fixed endpoints. They contain ':', which tool names
// cannot, so they never clash with a tool's operationId (its name).
const (
	// OpListTools is the operationId of GET /tools.
	OpListTools = "toolpack:listTools"
	// OpDescribeTool is the operationId of GET /tools/{name}.
	OpDescribeTool = "toolpack:describeTool"
	// OpOpenAPI is the operationId of GET /openapi.json.
	OpOpenAPI = "toolpack:openapi"
	// OpInvokeTool is the operationId of the generic POST
	// /tools/{name}/invoke; each tool also has its own operation.
	OpInvokeTool = "toolpack:invokeTool"
)

// docCache holds the last generated document with the registry generation it
// was built from; Registry.Subscribe bumps the generation.
type docCache struct {
	gen   atomic.Uint64
	entry atomic.Pointer[docEntry]
}

type docEntry struct {
	gen uint64
	doc []byte
}

// invalidate is the registry subscription: any change of the tool set makes
// the cached document stale.
func (c *docCache) invalidate() { c.gen.Add(1) }

// openAPI serves GET /openapi.json.
func (h *Handler) openAPI(w http.ResponseWriter, r *http.Request) {
	if !noQuery(w, r) {
		return
	}
	b, err := h.document()
	if err != nil {
		h.internal(w, r, "", err)
		return
	}
	writeJSON(w, http.StatusOK, b, true)
}

// document returns the cached document, regenerating it when the registry
// changed since. The generation is read before the tool list, so a change
// racing with generation leaves a stale entry that is never served.
func (h *Handler) document() ([]byte, error) {
	if h.closed.Load() { // no invalidation arrives any more: no cache
		return BuildOpenAPI(h.reg.List(), DocOptions{Title: h.title, Version: h.version, ServerURL: h.server, AltValueSchema: h.altValue})
	}
	g := h.doc.gen.Load()
	if e := h.doc.entry.Load(); e != nil && e.gen == g {
		return e.doc, nil
	}
	b, err := BuildOpenAPI(h.reg.List(), DocOptions{Title: h.title, Version: h.version, ServerURL: h.server, AltValueSchema: h.altValue})
	if err != nil {
		return nil, err
	}
	h.doc.entry.Store(&docEntry{gen: g, doc: b})
	return b, nil
}

// DocOptions fill in the parts of the OpenAPI document that do not come from
// the tools. Empty Title and Version become "toolpack" and "0.0.0" (OpenAPI
// requires both); an empty ServerURL omits servers.
type DocOptions struct {
	// Title is info.title.
	Title string
	// Version is info.version.
	Version string
	// ServerURL is servers[0].url.
	ServerURL string
	// AltValueSchema is Options.AltValueSchema.
	AltValueSchema func(t *registry.Tool) json.RawMessage
}

// The typed model of the parts of OpenAPI 3.1 this package writes. Schemas
// are raw JSON so the registry's schemas go in byte for byte.
type (
	oaDoc struct {
		OpenAPI    string                 `json:"openapi"`
		Info       oaInfo                 `json:"info"`
		Servers    []oaServer             `json:"servers,omitempty"`
		Tags       []oaTag                `json:"tags,omitempty"`
		Paths      map[string]*oaPathItem `json:"paths"`
		Components oaComponents           `json:"components"`
	}
	oaInfo struct {
		Title       string `json:"title"`
		Version     string `json:"version"`
		Description string `json:"description,omitempty"`
	}
	oaServer struct {
		URL string `json:"url"`
	}
	oaTag struct {
		Name string `json:"name"`
	}
	oaPathItem struct {
		Get  *oaOperation `json:"get,omitempty"`
		Post *oaOperation `json:"post,omitempty"`
	}
	oaOperation struct {
		OperationID string                 `json:"operationId"`
		Summary     string                 `json:"summary,omitempty"`
		Description string                 `json:"description,omitempty"`
		Tags        []string               `json:"tags,omitempty"`
		Parameters  []oaParameter          `json:"parameters,omitempty"`
		RequestBody *oaRequestBody         `json:"requestBody,omitempty"`
		Responses   map[string]*oaResponse `json:"responses"`
	}
	oaParameter struct {
		Name        string          `json:"name"`
		In          string          `json:"in"`
		Description string          `json:"description,omitempty"`
		Required    bool            `json:"required"`
		Schema      json.RawMessage `json:"schema"`
	}
	oaRequestBody struct {
		Description string                 `json:"description,omitempty"`
		Required    bool                   `json:"required"`
		Content     map[string]oaMediaType `json:"content"`
	}
	oaMediaType struct {
		Schema json.RawMessage `json:"schema"`
	}
	oaResponse struct {
		Description string                 `json:"description"`
		Content     map[string]oaMediaType `json:"content,omitempty"`
	}
	oaComponents struct {
		Schemas map[string]json.RawMessage `json:"schemas"`
	}
)

// Shared component schemas.
const (
	schemaErrorEnvelope = `{"type":"object","required":["ok","error","error_type"],"properties":{` +
		`"ok":{"const":false},"error":{"type":"string","description":"What went wrong, in words a model can act on."},` +
		`"error_type":{"type":"string","description":"The failure's kind: a result.ErrorType of the tool, or one of this API's own (unknown_tool, invalid_name, too_large, …)."},` +
		`"details":{"description":"The Result's error data; for validation_error an array of FieldError."},` +
		`"message":{"type":"string"},"instruction":{"type":"string"}},"additionalProperties":false}`
	schemaFieldError = `{"type":"object","required":["field","rule","message"],"properties":{` +
		`"field":{"type":"string"},"rule":{"type":"string"},"message":{"type":"string"}},"additionalProperties":false}`
	schemaToolSummary = `{"type":"object","required":["name","title","description","pack","source"],"properties":{` +
		`"name":{"type":"string"},"title":{"type":"string"},"description":{"type":"string"},` +
		`"pack":{"type":"string"},"source":{"type":"string"}},"additionalProperties":false}`
	schemaToolList = `{"type":"object","required":["tools"],"properties":{` +
		`"tools":{"type":"array","items":{"$ref":"#/components/schemas/ToolSummary"}}},"additionalProperties":false}`
	schemaToolDetail = `{"type":"object","required":["name","title","description","pack","source","input_schema","annotations"],"properties":{` +
		`"name":{"type":"string"},"title":{"type":"string"},"description":{"type":"string"},` +
		`"pack":{"type":"string"},"source":{"type":"string"},` +
		`"input_schema":{"type":["object","boolean"]},"output_schema":{"type":["object","boolean"]},` +
		`"annotations":{"type":"object","properties":{"read_only":{"type":"boolean"},"destructive":{"type":"boolean"},` +
		`"idempotent":{"type":"boolean"},"open_world":{"type":"boolean"}},"additionalProperties":false},` +
		`"signature":{"type":"string"},"args":{"type":"string"},"returns":{"type":"string"},"example":{"type":"string"}},` +
		`"additionalProperties":false}`
	refErrorEnvelope = `{"$ref":"#/components/schemas/ErrorEnvelope"}`
)

// invokeErrorStatuses are the error statuses an invoke operation documents:
// every status of the error table plus the HTTP-level ones.
func invokeErrorStatuses() []int {
	seen := map[int]bool{
		http.StatusBadRequest: true, http.StatusNotFound: true, http.StatusRequestEntityTooLarge: true,
		http.StatusUnsupportedMediaType: true, StatusOtherDomainFailure: true, http.StatusInternalServerError: true,
		http.StatusGatewayTimeout: true,
	}
	for _, row := range errorStatusTable() {
		seen[row.Status] = true
	}
	out := make([]int, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	sort.Ints(out)
	return out
}

// statusDescription says what an error status of an invoke means.
func statusDescription(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "validation_error (details: the FieldErrors, at most 100 beside the top-level arguments), another 400 error type of the tool, or invalid_name / bad_request"
	case http.StatusNotFound:
		return "unknown_tool (no such tool) or a not_found failure of the tool"
	case http.StatusRequestEntityTooLarge:
		return "too_large: the body is over the size cap"
	case http.StatusUnsupportedMediaType:
		return "unsupported_media_type: the Content-Type is missing or not application/json"
	case StatusOtherDomainFailure:
		return "a domain failure whose error type has no status of its own"
	case http.StatusInternalServerError:
		return "internal_error: a protocol failure (details were logged) or a tool's internal_error"
	case StatusClientClosedRequest:
		return "cancelled: the caller cancelled the call"
	}
	var types []string
	for _, row := range errorStatusTable() {
		if row.Status == status {
			types = append(types, string(row.Type))
		}
	}
	return fmt.Sprintf("a domain failure of type %v", types)
}

// place returns the schema to embed for a tool's schema s. A schema with
// local references ("$ref": "#/$defs/item", "#") is moved to
// components/schemas under name (a tool name and ".input" or ".output":
// never another's, never a fixed component's) with its references rebased
// there, and the reference to it is returned: inlined, "#/$defs/item"
// would point into the OpenAPI document's root, where nothing is. Any
// other schema is inlined byte for byte, as is one whose root has an
// "$id" of its own (its references are relative to it). A schema whose
// local references cannot be followed — one points at no schema, or a chain
// of them comes back to where it started through references alone (a
// remote server's tool can send either) — is not shown: in its place is a
// schema saying so and why, so that one tool cannot make the whole
// document unreadable. Calls are not affected.
func (c *oaComponents) place(name string, s json.RawMessage) json.RawMessage {
	if !bytes.Contains(s, []byte(`"$ref"`)) {
		return s
	}
	dec := json.NewDecoder(bytes.NewReader(s))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil {
		return s
	}
	if id, ok := m["$id"].(string); ok && !strings.HasPrefix(id, "#") {
		return s
	}
	if why := unfollowable(m); why != "" {
		return notShown(why)
	}
	base := "#/components/schemas/" + name // tool names need no escaping: [A-Za-z0-9_.-]
	jsonptr.RebaseRefs(m, base)
	placed, err := marshal(m)
	if err != nil {
		return s
	}
	c.Schemas[name] = placed
	ref, _ := json.Marshal(map[string]string{"$ref": base})
	return ref
}

// unfollowable says why the local references of the schema m cannot be
// followed, or "" when they can.
func unfollowable(m map[string]any) string {
	if ref := jsonptr.Dangling(m); ref != "" {
		return fmt.Sprintf("the reference %q points at no schema", ref)
	}
	if chain := jsonptr.RefCycle(m); chain != nil {
		return jsonptr.DescribeCycle(chain)
	}
	return ""
}

// altValues places the other schemas a tool's value may take
// (DocOptions.AltValueSchema) as components, one per distinct schema
// ("AltValue1", …, in the order of the tools that first use them).
type altValues struct {
	fn    func(*registry.Tool) json.RawMessage
	comps *oaComponents
	names map[string]string // schema → component reference
}

// add returns the value schema of t: out itself, or any of out and the
// other schema AltValueSchema gives t.
func (a *altValues) add(t *registry.Tool, out json.RawMessage) (json.RawMessage, error) {
	if a.fn == nil {
		return out, nil
	}
	alt := a.fn(t)
	if len(alt) == 0 {
		return out, nil
	}
	if !json.Valid(alt) {
		return nil, fmt.Errorf("httpapi: tool %q: the schema Options.AltValueSchema gives is not valid JSON", t.Name)
	}
	ref, ok := a.names[string(alt)]
	if !ok {
		name := "AltValue" + strconv.Itoa(len(a.names)+1)
		a.comps.Schemas[name] = alt
		ref = `{"$ref":"#/components/schemas/` + name + `"}`
		a.names[string(alt)] = ref
	}
	return json.RawMessage(`{"anyOf":[` + string(out) + `,` + ref + `]}`), nil
}

// notShown is the schema shown in place of one that cannot be: any value,
// described as not shown, and why.
func notShown(why string) json.RawMessage {
	shown, _ := marshal(map[string]string{"description": "The tool's schema is not shown: " + why + "."}) // strings always encode
	return shown
}

func jsonContent(schema string) map[string]oaMediaType {
	return map[string]oaMediaType{"application/json": {Schema: json.RawMessage(schema)}}
}

// BuildOpenAPI returns the OpenAPI 3.1 document (JSON) describing the
// handler's endpoints for tools: the list endpoints and one POST operation
// per tool (operationId = tool name, summary = title, requestBody = the
// input schema inlined, 200 = {"ok":true,"value": output schema} and every
// error status with the ErrorEnvelope schema). A schema with local
// references is a component instead ("{tool}.input", "{tool}.output"),
// its references rebased. A tool schema that is not valid JSON is an error
// naming the tool.
func BuildOpenAPI(tools []*registry.Tool, o DocOptions) ([]byte, error) {
	if o.Title == "" {
		o.Title = "toolpack"
	}
	if o.Version == "" {
		o.Version = "0.0.0"
	}
	d := oaDoc{
		OpenAPI: OpenAPIVersion,
		Info: oaInfo{Title: o.Title, Version: o.Version,
			Description: "Tools served over HTTP/JSON. Invoke bodies are the tool's arguments as JSON (Content-Type: application/json)."},
		Paths: map[string]*oaPathItem{},
		Components: oaComponents{Schemas: map[string]json.RawMessage{
			"ErrorEnvelope": json.RawMessage(schemaErrorEnvelope),
			"FieldError":    json.RawMessage(schemaFieldError),
			"ToolSummary":   json.RawMessage(schemaToolSummary),
			"ToolList":      json.RawMessage(schemaToolList),
			"ToolDetail":    json.RawMessage(schemaToolDetail),
		}},
	}
	if o.ServerURL != "" {
		d.Servers = []oaServer{{URL: o.ServerURL}}
	}
	errResp := func(desc string) *oaResponse {
		return &oaResponse{Description: desc, Content: jsonContent(refErrorEnvelope)}
	}
	nameParam := oaParameter{Name: "name", In: "path", Required: true, Description: "The tool's name.",
		Schema: json.RawMessage(fmt.Sprintf(`{"type":"string","pattern":"^[A-Za-z0-9_.-]{1,%d}$"}`, registry.MaxNameLen))}
	d.Paths["/tools"] = &oaPathItem{Get: &oaOperation{
		OperationID: OpListTools, Summary: "List tools",
		Description: "Every tool, sorted by name; pack filters by exact pack name, q by case-insensitive substring of name, title or description.",
		Parameters: []oaParameter{
			{Name: "pack", In: "query", Description: "Exact pack name.", Schema: json.RawMessage(fmt.Sprintf(`{"type":"string","maxLength":%d}`, MaxPackLen))},
			{Name: "q", In: "query", Description: "Case-insensitive substring of name, title or description.", Schema: json.RawMessage(fmt.Sprintf(`{"type":"string","maxLength":%d}`, MaxQueryLen))},
		},
		Responses: map[string]*oaResponse{
			"200": {Description: "The matching tools.", Content: jsonContent(`{"$ref":"#/components/schemas/ToolList"}`)},
			"400": errResp("invalid_parameter: an unknown, repeated or oversized query parameter"),
		},
	}}
	d.Paths["/tools/{name}"] = &oaPathItem{Get: &oaOperation{
		OperationID: OpDescribeTool, Summary: "Describe a tool",
		Description: "The tool's schemas, annotations, description (with the argument Markdown), pack and source.",
		Parameters:  []oaParameter{nameParam},
		Responses: map[string]*oaResponse{
			"200": {Description: "The tool.", Content: jsonContent(`{"$ref":"#/components/schemas/ToolDetail"}`)},
			"400": errResp("invalid_name: the name does not match the pattern"),
			"404": errResp("unknown_tool: no tool has that name"),
		},
	}}
	d.Paths["/openapi.json"] = &oaPathItem{Get: &oaOperation{
		OperationID: OpOpenAPI, Summary: "This document",
		Responses: map[string]*oaResponse{
			"200": {Description: "The OpenAPI 3.1 document.", Content: jsonContent(`{"type":"object"}`)},
		},
	}}

	statuses := invokeErrorStatuses()
	generic := &oaOperation{
		OperationID: OpInvokeTool, Summary: "Invoke any tool by name",
		Description: "The generic form of the per-tool operations below, which carry each tool's own schemas " +
			"(OpenAPI matches concrete paths before this template).",
		Parameters: []oaParameter{nameParam},
		RequestBody: &oaRequestBody{
			Description: "The tool's arguments. An empty body (or only white space, or null) means no arguments ({}).",
			Content:     jsonContent(`{"type":"object"}`),
		},
		Responses: map[string]*oaResponse{
			"200": {Description: "The call succeeded; value is the tool's value.", Content: jsonContent(
				`{"type":"object","required":["ok","value"],"properties":{"ok":{"const":true},"value":{},` +
					`"message":{"type":"string"},"instruction":{"type":"string"}},"additionalProperties":false}`)},
		},
	}
	for _, s := range statuses {
		generic.Responses[strconv.Itoa(s)] = errResp(statusDescription(s))
	}
	d.Paths["/tools/{name}/invoke"] = &oaPathItem{Post: generic}
	tags := map[string]bool{}
	alts := altValues{fn: o.AltValueSchema, comps: &d.Components, names: map[string]string{}}
	for _, t := range tools {
		in := inputSchema(t)
		if !json.Valid(in) {
			return nil, fmt.Errorf("httpapi: tool %q: input schema is not valid JSON", t.Name)
		}
		in = d.Components.place(t.Name+".input", in)
		out := json.RawMessage(`{}`)
		if len(t.OutputSchema) > 0 {
			if !json.Valid(t.OutputSchema) {
				return nil, fmt.Errorf("httpapi: tool %q: output schema is not valid JSON", t.Name)
			}
			out = d.Components.place(t.Name+".output", t.OutputSchema)
			var err error
			if out, err = alts.add(t, out); err != nil {
				return nil, err
			}
		}
		ok := `{"type":"object","required":["ok","value"],"properties":{"ok":{"const":true},"value":` + string(out) +
			`,"message":{"type":"string"},"instruction":{"type":"string"}},"additionalProperties":false}`
		op := &oaOperation{
			OperationID: t.Name,
			Summary:     t.Title,
			Description: t.Description,
			RequestBody: &oaRequestBody{
				Description: "The tool's arguments. An empty body (or only white space, or null) means no arguments ({}).",
				Required:    false,
				Content:     map[string]oaMediaType{"application/json": {Schema: in}},
			},
			Responses: map[string]*oaResponse{
				"200": {Description: "The call succeeded; value is the tool's value.", Content: jsonContent(ok)},
			},
		}
		if t.Pack != "" {
			op.Tags = []string{t.Pack}
			tags[t.Pack] = true
		}
		for _, s := range statuses {
			op.Responses[strconv.Itoa(s)] = errResp(statusDescription(s))
		}
		for _, e := range t.Errors {
			s := toolStatus(t, e.Type)
			desc := "a domain failure of type " + string(e.Type)
			if e.Description != "" {
				desc += ": " + e.Description
			}
			key := strconv.Itoa(s)
			if r, ok := op.Responses[key]; ok {
				desc = r.Description + "; " + desc
			}
			op.Responses[key] = errResp(desc)
		}
		d.Paths["/tools/"+t.Name+"/invoke"] = &oaPathItem{Post: op}
	}
	for name := range tags {
		d.Tags = append(d.Tags, oaTag{Name: name})
	}
	sort.Slice(d.Tags, func(i, j int) bool { return d.Tags[i].Name < d.Tags[j].Name })
	b, err := marshal(d)
	if err != nil {
		return nil, fmt.Errorf("httpapi: marshal OpenAPI document: %w", err)
	}
	return b, nil
}
