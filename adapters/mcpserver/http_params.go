package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
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

// paramsError checks that the params of req decode into its method's
// parameter type. When they do not, it returns a JSON-RPC -32602 error
// whose message names the method, the field and the JSON type expected
// (the SDK's own message for the same request names Go types, such as
// *mcp.CallToolParamsRaw or map[string]interface {}, and quotes the
// params). Anything else — a notification, an unknown method, params that
// decode — is left to the SDK (nil).
func paramsError(req *jsonrpc.Request) *jsonrpc.Error {
	if !req.IsCall() || len(req.Params) == 0 {
		return nil
	}
	newParams, ok := paramsOf[req.Method]
	if !ok {
		return nil
	}
	err := json.Unmarshal(req.Params, newParams())
	if err == nil {
		return nil
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: paramsMessage(req.Method, err)}
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
