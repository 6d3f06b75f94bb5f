package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// paramsOf gives, for each request method a server receives, a new value
// of the SDK type its params are decoded into. Notifications are left out:
// they have no answer to carry an error.
var paramsOf = map[string]func() any{
	"initialize":               func() any { return new(sdk.InitializeParams) },
	"ping":                     func() any { return new(sdk.PingParams) },
	"tools/list":               func() any { return new(sdk.ListToolsParams) },
	"tools/call":               func() any { return new(sdk.CallToolParamsRaw) },
	"prompts/list":             func() any { return new(sdk.ListPromptsParams) },
	"prompts/get":              func() any { return new(sdk.GetPromptParams) },
	"resources/list":           func() any { return new(sdk.ListResourcesParams) },
	"resources/templates/list": func() any { return new(sdk.ListResourceTemplatesParams) },
	"resources/read":           func() any { return new(sdk.ReadResourceParams) },
	"resources/subscribe":      func() any { return new(sdk.SubscribeParams) },
	"resources/unsubscribe":    func() any { return new(sdk.UnsubscribeParams) },
	"logging/setLevel":         func() any { return new(sdk.SetLoggingLevelParams) },
	"completion/complete":      func() any { return new(sdk.CompleteParams) },
	"subscriptions/listen":     func() any { return new(sdk.SubscriptionsListenParams) },
	"server/discover":          func() any { return new(sdk.DiscoverParams) },
}

// paramsRequired are the methods whose params MCP requires (the others'
// may be absent or null).
var paramsRequired = map[string]bool{
	"initialize":            true,
	"tools/call":            true,
	"prompts/get":           true,
	"resources/read":        true,
	"resources/subscribe":   true,
	"resources/unsubscribe": true,
	"logging/setLevel":      true,
	"completion/complete":   true,
	"subscriptions/listen":  true,
}

// paramsError checks that the params of req decode into its method's
// parameter type. When they do not, it returns a JSON-RPC -32602 error
// whose message names the method, the field and the JSON type expected
// (the SDK's own message for the same request names Go types, such as
// *mcp.CallToolParamsRaw or map[string]interface {}, and quotes the
// params). Params a method requires that are absent or null are refused
// the same way (the SDK answers HTTP 400 text or -32600), and so is a
// logging/setLevel level MCP does not define (the SDK would store it).
// Anything else — a notification, an unknown method, params that decode —
// is left to the SDK (nil). The message never quotes the params.
func paramsError(req *jsonrpc.Request) *jsonrpc.Error {
	if !req.IsCall() {
		return nil
	}
	newParams, ok := paramsOf[req.Method]
	if !ok {
		return nil
	}
	if p := bytes.TrimSpace(req.Params); len(p) == 0 || bytes.Equal(p, []byte("null")) {
		if !paramsRequired[req.Method] {
			return nil
		}
		got := "none"
		if len(p) > 0 {
			got = "null"
		}
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
			Message: fmt.Sprintf("invalid params for %q: field \"params\" is required (a JSON object), got %s", req.Method, got)}
	}
	params := newParams()
	if err := json.Unmarshal(req.Params, params); err != nil {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: paramsMessage(req.Method, err)}
	}
	if p, ok := params.(*sdk.SetLoggingLevelParams); ok {
		return levelError(p.Level)
	}
	return nil
}

// loggingLevels are the levels MCP defines for logging/setLevel, lowest
// first.
var loggingLevels = []sdk.LoggingLevel{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// levelError refuses a logging/setLevel level MCP does not define: the
// SDK would answer {} and store it, and a client would then get no log
// messages, or all of them, without knowing why.
func levelError(l sdk.LoggingLevel) *jsonrpc.Error {
	if slices.Contains(loggingLevels, l) {
		return nil
	}
	names := make([]string, len(loggingLevels))
	for i, v := range loggingLevels {
		names[i] = string(v)
	}
	got := "none"
	switch {
	case len(l) > 32:
		got = fmt.Sprintf("a string of %d bytes", len(l))
	case l != "":
		got = strconv.Quote(string(l))
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
		Message: fmt.Sprintf("invalid params for \"logging/setLevel\": field \"level\" must be one of %s, got %s", strings.Join(names, ", "), got)}
}

// paramsMessage describes a decoding error of method's params in JSON
// terms.
func paramsMessage(method string, err error) string {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return fmt.Sprintf("invalid params for %q: they do not match the parameters of the method (see the MCP schema)", method)
	}
	got := jsonKind(te.Value)
	want := expectedJSON(te.Type)
	if te.Field == "" {
		return fmt.Sprintf("invalid params for %q: expected %s, got %s", method, want, got)
	}
	return fmt.Sprintf("invalid params for %q: field %q must be %s, got %s", method, te.Field, want, got)
}

// jsonKind turns UnmarshalTypeError.Value ("string", "number 1.5", …) into
// words.
func jsonKind(v string) string {
	switch {
	case v == "string":
		return "a string"
	case v == "bool":
		return "a boolean"
	case v == "array":
		return "an array"
	case v == "object":
		return "an object"
	case strings.HasPrefix(v, "number"):
		return "a number"
	default:
		return v
	}
}

// expectedJSON names the JSON type a Go type is decoded from.
func expectedJSON(t reflect.Type) string {
	if t == nil {
		return "a different value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Map, reflect.Struct:
		return "a JSON object"
	case reflect.Slice, reflect.Array:
		return "an array"
	default:
		return "a different value"
	}
}

// versionNoBatches is the first protocol version without JSON-RPC
// batches; the SDK refuses a batch of a session on it or later.
const versionNoBatches = "2025-06-18"

// isBatch reports whether body holds a JSON array (a JSON-RPC batch).
func isBatch(body []byte) bool {
	b := bytes.TrimLeft(body, " \t\r\n")
	return len(b) > 0 && b[0] == '['
}

// batchesAccepted reports whether the SDK takes a batch posted with r's
// protocol version header: absent (the SDK assumes 2025-03-26) or before
// 2025-06-18.
func batchesAccepted(r *http.Request) bool {
	v := r.Header.Get("Mcp-Protocol-Version")
	return v == "" || v < versionNoBatches
}

// batchNotRun answers the requests of a refused batch whose own params
// are sound.
const batchNotRun = "not run: another request of this batch has invalid params, so none was run; send the batch again with it corrected"

// batchRefusal checks every request of a JSON-RPC batch as paramsError
// checks a single one. When one or more have params that do not fit, the
// batch is refused whole — nothing in it runs — and the answer is the
// batch's response (JSON-RPC 2.0: an array with a response for each
// request): a request with bad params gets its -32602 error, every other
// request a -32600 error saying that it was not run and why;
// notifications and responses get none. bad is the number of requests
// with bad params. A batch that passes, or that is not a batch of
// messages, gives nil: the SDK's to run or answer.
func batchRefusal(body []byte) (answer []byte, bad int) {
	var raws []json.RawMessage
	if json.Unmarshal(body, &raws) != nil || len(raws) == 0 {
		return nil, 0
	}
	reqs := make([]*jsonrpc.Request, 0, len(raws))
	for _, raw := range raws {
		msg, err := jsonrpc.DecodeMessage(raw)
		if err != nil {
			return nil, 0
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			reqs = append(reqs, req)
		}
	}
	errs := make([]*jsonrpc.Error, len(reqs))
	for i, req := range reqs {
		if errs[i] = paramsError(req); errs[i] != nil {
			bad++
		}
	}
	if bad == 0 {
		return nil, 0
	}
	// One short message, quoting nothing of the batch (an id may be as
	// long as the body allows, and this answers every other request).
	notRun := &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: batchNotRun}
	out := make([]json.RawMessage, len(reqs))
	for i, req := range reqs {
		jerr := errs[i]
		if jerr == nil {
			jerr = notRun
		}
		out[i] = errorResponse(req.ID, jerr)
	}
	answer, err := json.Marshal(out)
	if err != nil {
		return nil, 0
	}
	return answer, bad
}

// CheckParams wraps an MCP transport so that a request whose params do not
// fit its method (a string where tools/call needs an object, a number as
// the tool name, …) is answered with JSON-RPC -32602 "invalid params"
// naming the method, the field and the JSON type expected, instead of the
// SDK's message, which names Go types and quotes the params. Other
// messages pass through unchanged. ServeStdio and HTTPHandler apply the
// same check; use CheckParams when running a server on a transport of your
// own (for example mcpstdio.IOTransport).
func CheckParams(t sdk.Transport) sdk.Transport { return checkedTransport{t} }

type checkedTransport struct{ sdk.Transport }

// Connect implements sdk.Transport.
func (t checkedTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return checkedConn{c}, nil
}

type checkedConn struct{ sdk.Connection }

// Read implements sdk.Connection: it answers requests with bad params
// itself and returns the next message that passes.
func (c checkedConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		if err != nil {
			return msg, err
		}
		req, ok := msg.(*jsonrpc.Request)
		if !ok {
			return msg, nil
		}
		jerr := paramsError(req)
		if jerr == nil {
			return msg, nil
		}
		if err := c.Connection.Write(ctx, &jsonrpc.Response{ID: req.ID, Error: jerr}); err != nil {
			return nil, err
		}
	}
}
