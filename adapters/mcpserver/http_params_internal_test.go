package mcpserver

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// FuzzParamsError: for any method and params, the check never panics;
// params that decode into the method's SDK type pass; an error is -32602,
// names the method and names no Go type.
func FuzzParamsError(f *testing.F) {
	methods := make([]string, 0, len(paramsOf))
	for m := range paramsOf {
		methods = append(methods, m)
	}
	sort.Strings(methods)
	for i, p := range []string{`"x"`, `{"name":5}`, `{"name":"e","_meta":5}`, `[1]`, `{"name":"e","arguments":"s"}`,
		`{"cursor":5}`, `{"protocolVersion":2,"capabilities":{"roots":{"listChanged":"x"}}}`, `{"uri":{}}`, `{"level":[]}`,
		`{"ref":{"type":5},"argument":{"name":1}}`, `null`, `{}`, `{"name":"greet","_meta":{"progressToken":{}}}`} {
		f.Add(uint8(i), p)
	}
	f.Fuzz(func(t *testing.T, m uint8, params string) {
		if !json.Valid([]byte(params)) {
			return // a message with invalid params JSON never decodes
		}
		method := methods[int(m)%len(methods)]
		id, _ := jsonrpc.MakeID(float64(1))
		req := &jsonrpc.Request{ID: id, Method: method, Params: json.RawMessage(params)}
		jerr := paramsError(req)
		decodes := json.Unmarshal([]byte(params), paramsOf[method]()) == nil
		if decodes != (jerr == nil) {
			t.Fatalf("%s %s: decodes=%v, error=%v", method, params, decodes, jerr)
		}
		if jerr == nil {
			return
		}
		if jerr.Code != jsonrpc.CodeInvalidParams {
			t.Fatalf("code %d", jerr.Code)
		}
		if !strings.HasPrefix(jerr.Message, `invalid params for "`+method+`"`) {
			t.Fatalf("message does not name the method: %s", jerr.Message)
		}
		for _, goish := range []string{"mcp.", "interface {}", "Go value", "Go struct", "*"} {
			if strings.Contains(jerr.Message, goish) {
				t.Fatalf("message names a Go type (%q): %s", goish, jerr.Message)
			}
		}
	})
}
